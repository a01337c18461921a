//! The native tool end to end on small files it writes itself.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_largemargin-cli"))
}

#[test]
fn train_predict_eval_round_trip() {
    let dir = std::env::temp_dir().join(format!("lm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("train.txt");
    let mut text = String::new();
    // two interleaved classes on a circle: needs the RBF kernel
    for i in 0..200 {
        let t = i as f64 * 0.1;
        let r = if i % 2 == 0 { 1.0 } else { 2.0 };
        text.push_str(&format!("{} 1:{} 2:{}\n", if i % 2 == 0 { 1 } else { -1 }, r * t.cos(), r * t.sin()));
    }
    std::fs::write(&data, text).unwrap();
    let model = dir.join("m.model");
    let out = bin().args(["train", "-c", "10", "-g", "1"]).arg(&data).arg(&model).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("support vectors"));
    let out = bin().arg("eval").arg(&data).arg(&model).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Accuracy = 100% (200/200) (classification)");
    let pred = dir.join("p.txt");
    let out = bin().arg("predict").arg(&data).arg(&model).arg(&pred).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Accuracy = 100% (200/200) (classification)");
    assert_eq!(std::fs::read_to_string(&pred).unwrap().lines().count(), 200);
    let out = bin().args(["predict", "-q"]).arg(&data).arg(&model).arg(&pred).output().unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    // regression: svm-predict's two lines
    let svr_model = dir.join("r.model");
    assert!(bin().args(["train", "-q", "-s", "3"]).arg(&data).arg(&svr_model).status().unwrap().success());
    let out = bin().arg("eval").arg(&data).arg(&svr_model).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("Mean squared error = ") && text.contains("\nSquared correlation coefficient = "),
        "{text}"
    );
}

#[test]
fn reports_bad_lines_and_usage() {
    let dir = std::env::temp_dir().join(format!("lm-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("bad.txt");
    std::fs::write(&data, "1 1:1\n-1 1:zz\n").unwrap();
    let out = bin().arg("train").arg(&data).arg(dir.join("m")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
    let out = bin().output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
    for args in [&["--help"][..], &["train", "--help"], &["predict", "--help"]] {
        let out = bin().args(args).output().unwrap();
        assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("usage"), "{args:?}");
    }
    let out = bin().arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("largemargin-cli {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn default_gamma_is_svm_trains() {
    // svm-train's default gamma is 1 / the largest feature index as written: 1/4 here, in both bases
    let dir = std::env::temp_dir().join(format!("lm-cli-gamma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, rows) in [("one.txt", "1 1:1 4:1\n-1 2:1\n"), ("zero.txt", "1 0:1 4:1\n-1 2:1\n")] {
        let data = dir.join(name);
        std::fs::write(&data, rows).unwrap();
        let model = dir.join(format!("{name}.model"));
        assert!(bin().args(["train", "-q"]).arg(&data).arg(&model).status().unwrap().success());
        assert!(std::fs::read_to_string(&model).unwrap().contains("\ngamma 0.25\n"), "{name}");
    }
}

#[test]
fn refuses_options_it_would_otherwise_reinterpret() {
    let dir = std::env::temp_dir().join(format!("lm-cli-opts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("d.txt");
    std::fs::write(&data, "1 1:1\n-1 1:-1\n").unwrap();
    let model = dir.join("m");
    for (opts, says) in [
        (&["-t", "-1"][..], "-t: '-1' is not an integer"),
        (&["-t", "nan"], "-t: 'nan' is not an integer"),
        (&["-t", "2.7"], "-t: '2.7' is not an integer"),
        (&["-d", "1e10"], "-d: '1e10' is not an integer"),
        (&["-d", "-5"], "-d: '-5' is not an integer"),
        (&["-m", "-5"], "-m: '-5' is not a positive number"),
        (&["-c", "nan"], "-c: 'nan' is not a positive number"),
        (&["-g", "0"], "-g: '0' is not a positive number"),
        (&["-p", "-1"], "-p: '-1' is not a number >= 0"),
        (&["-h", "2"], "-h: '2' is not 0 or 1"),
        (&["-j", "0"], "-j: '0' is not an integer"),
        (
            &["-s", "5"],
            "-s: '5' is not an integer from 0 to 4, nor one of c_svc, nu_svc, one_class, epsilon_svr, nu_svr",
        ),
        (&["-s", "nu-svc"], "-s: 'nu-svc' is not an integer from 0 to 4"),
        (&["-n", "0"], "-n: '0' is not a positive number"),
        (&["-n", "nan"], "-n: 'nan' is not a positive number"),
        (&["-n", "1.5"], "-n: '1.5' is not in (0, 1]"),
        (&["-t", "rbff"], "-t: 'rbff' is not an integer from 0 to 4, nor one of linear, poly, rbf"),
        (&["-t", "precomputed"], "precomputed kernels are trained from Python"),
        (&["-w1", "2"], "unknown option -w1"),
    ] {
        let out = bin().arg("train").args(opts).arg(&data).arg(&model).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{opts:?}: {err}");
        assert!(err.contains(says) && err.lines().count() == 1, "{opts:?}: {err}");
        assert!(!model.exists(), "{opts:?} wrote a model");
    }
}

#[test]
fn writes_the_training_files_base_and_reads_test_indices_as_written() {
    let dir = std::env::temp_dir().join(format!("lm-cli-base-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // zero-based: the class is decided by feature 0
    let train = dir.join("train.txt");
    let mut text = String::new();
    for i in 0..40 {
        let v = if i % 2 == 0 { 1.0 } else { -1.0 };
        text.push_str(&format!("{} 0:{v} 1:{}\n", v as i32, (i % 7) as f64 / 7.0));
    }
    std::fs::write(&train, text).unwrap();
    let model = dir.join("m.model");
    assert!(bin().args(["train", "-q", "-t", "0"]).arg(&train).arg(&model).status().unwrap().success());
    let written = std::fs::read_to_string(&model).unwrap();
    assert!(written.lines().skip_while(|l| *l != "SV").skip(1).any(|l| l.contains(" 0:")), "{written}");
    // a test file that never mentions feature 0 and one that mentions a feature no vector has
    let test = dir.join("test.txt");
    std::fs::write(&test, "1 0:2 5:1\n-1 0:-2\n-1 1:0.5\n").unwrap();
    let pred = dir.join("p.txt");
    let out = bin().arg("predict").arg(&test).arg(&model).arg(&pred).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let labels: Vec<f64> = std::fs::read_to_string(&pred).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(labels[..2], [1.0, -1.0]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_error_and_a_failed_save_keeps_the_old_file() {
    let dir = std::env::temp_dir().join(format!("lm-cli-full-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("d.txt");
    let rows: String =
        (0..300).map(|i| format!("{} 1:{} 2:{}\n", if i % 3 == 0 { 1 } else { -1 }, i % 17, i % 5)).collect();
    std::fs::write(&data, rows).unwrap();
    let out = bin().args(["train", "-q"]).arg(&data).arg("/dev/full").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No space left"));
    let model = dir.join("m.model");
    assert!(bin().args(["train", "-q", "-c", "0.01"]).arg(&data).arg(&model).status().unwrap().success());
    let before = std::fs::read(&model).unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -f 1; exec {} train -q -c 1000 -g 10 {} {}",
            env!("CARGO_BIN_EXE_largemargin-cli"),
            data.display(),
            model.display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("File too large"));
    assert_eq!(std::fs::read(&model).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

#[test]
fn types_and_kernels_by_number_or_by_name_are_the_same_model() {
    let dir = std::env::temp_dir().join(format!("lm-cli-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("d.txt");
    std::fs::write(&data, "1 1:1 2:0.5\n-1 1:-1 2:0.2\n1 1:0.8 2:-0.3\n-1 1:-0.7 2:-0.1\n").unwrap();
    for (numbers, names) in [
        (["-s", "0", "-t", "1"], ["-s", "c_svc", "-t", "polynomial"]),
        (["-s", "3", "-t", "0"], ["-s", "epsilon_svr", "-t", "linear"]),
    ] {
        let (a, b) = (dir.join("a.model"), dir.join("b.model"));
        for (opts, model) in [(numbers, &a), (names, &b)] {
            let out = bin().arg("train").arg("-q").args(opts).arg(&data).arg(model).output().unwrap();
            assert!(out.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "{names:?}");
    }
}

#[test]
fn nu_types_train_and_predict() {
    let dir = std::env::temp_dir().join(format!("lm-cli-nu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("d.txt");
    // two classes of 20 points on a line, apart; the regression target is the feature
    let rows: String = (0..40)
        .map(|i| {
            let v = if i < 20 { -1.0 - i as f64 / 20.0 } else { 1.0 + (i - 20) as f64 / 20.0 };
            format!("{} 1:{v}\n", if i < 20 { -1 } else { 1 })
        })
        .collect();
    std::fs::write(&data, rows).unwrap();
    let (model, out_file) = (dir.join("m"), dir.join("p"));
    for (opts, name) in [
        (&["-s", "1"][..], "nu_svc"),
        (&["-s", "nu_svc", "-n", "0.25", "-b", "1"], "nu_svc"),
        (&["-s", "2", "-n", "0.3", "-b", "1"], "one_class"),
        (&["-s", "4", "-n", "0.5"], "nu_svr"),
    ] {
        let out = bin().arg("train").args(opts).arg(&data).arg(&model).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{opts:?}: {err}");
        let text = std::fs::read_to_string(&model).unwrap();
        assert!(text.starts_with(&format!("svm_type {name}\n")), "{opts:?}: {text}");
        let out = bin().arg("predict").arg(&data).arg(&model).arg(&out_file).output().unwrap();
        assert!(out.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&out.stderr));
        let predicted = std::fs::read_to_string(&out_file).unwrap();
        assert_eq!(predicted.lines().count(), 40, "{opts:?}");
        if name == "nu_svc" {
            // the classes are apart: every training point on its side
            let right = predicted.lines().enumerate().filter(|(i, l)| l.starts_with(if *i < 20 { "-1" } else { "1" }));
            assert_eq!(right.count(), 40, "{opts:?}: {predicted}");
        }
    }
    // LIBSVM's refusals: an infeasible nu, a nu outside (0, 1], probabilities of a regression
    std::fs::write(&data, "1 1:1\n1 1:2\n1 1:3\n-1 1:-1\n").unwrap();
    for (opts, message) in [
        (&["-s", "1", "-n", "0.9"][..], "specified nu is infeasible"),
        (&["-s", "2", "-n", "1.5"], "-n"),
        (&["-s", "4", "-b", "1"], "-b 1 with -s 4"),
    ] {
        let _ = std::fs::remove_file(&model);
        let out = bin().arg("train").args(opts).arg(&data).arg(&model).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(message), "{opts:?}: {err}");
        assert!(!model.exists(), "{opts:?}");
    }
}

/// Runs predict with `opts` on `model` (a model file's text) and the test rows `test`: the
/// exit status, the output file and stdout.
fn predict_with(dir: &std::path::Path, opts: &[&str], model: &str, test: &str) -> (bool, String, String, String) {
    let (m, t, p) = (dir.join("m.model"), dir.join("t.txt"), dir.join("p.txt"));
    std::fs::write(&m, model).unwrap();
    std::fs::write(&t, test).unwrap();
    let _ = std::fs::remove_file(&p);
    let out = bin().arg("predict").args(opts).arg(&t).arg(&m).arg(&p).output().unwrap();
    let written = std::fs::read_to_string(&p).unwrap_or_default();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), written, text(&out.stdout), text(&out.stderr))
}

#[test]
fn predicts_every_libsvm_type_with_and_without_probabilities() {
    let dir = std::env::temp_dir().join(format!("lm-cli-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // one feature, linear kernel: the decision value is x - 0.5
    let one_class = "svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0.5\n\
                     prob_density_marks -0.9 -0.7 -0.5 -0.3 -0.1 0.1 0.3 0.5 0.7 0.9\nSV\n1 1:1\n";
    let test = "1 1:2\n-1 1:0.3\n1 1:0.5\n";
    let (ok, written, stdout, stderr) = predict_with(&dir, &[], one_class, test);
    assert!(ok, "{stderr}");
    assert_eq!(written, "1\n-1\n-1\n"); // a decision of exactly 0 is an outlier, as in LIBSVM
    assert_eq!(stdout.trim(), "Accuracy = 66.6667% (2/3) (classification)");
    let (ok, written, _, stderr) = predict_with(&dir, &["-b", "1", "-q"], one_class, test);
    assert!(ok, "{stderr}");
    let outlier = |p: f64| format!("{}", 1.0 - p);
    assert_eq!(
        written,
        format!("label normal outlier\n1 0.999 {}\n-1 0.4 {}\n-1 0.5 0.5\n", outlier(0.999), outlier(0.4))
    );

    let no_marks = one_class.lines().filter(|l| !l.starts_with("prob_density")).collect::<Vec<_>>().join("\n");
    let (ok, _, _, stderr) = predict_with(&dir, &["-b", "1"], &no_marks, test);
    assert!(!ok && stderr.contains("no probability estimates (svm_type one_class, trained without -b 1)"), "{stderr}");

    let nu_svc = "svm_type nu_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 3 -3\nprobA -2\n\
                  probB 0\nnr_sv 1 1\nSV\n1 1:1\n-1 1:-1\n";
    let (ok, written, stdout, stderr) = predict_with(&dir, &["-q", "-b", "1"], nu_svc, "3 1:1\n-3 1:-0.5\n");
    assert!(ok && stdout.is_empty(), "{stderr}");
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines[0], "labels 3 -3");
    assert!(lines[1].starts_with("3 0.98") && lines[2].starts_with("-3 0.11"), "{written}");
    let (_, written, _, _) = predict_with(&dir, &[], nu_svc, "3 1:1\n-3 1:-0.5\n");
    assert_eq!(written, "3\n-3\n");

    // regression: -b 1 prints the noise model's scale and writes the values as usual
    let nu_svr = "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho -0.5\nprobA 0.25\nSV\n2 1:1\n";
    let (ok, written, stdout, stderr) = predict_with(&dir, &["-b", "1"], nu_svr, "2.5 1:1\n0.5 1:0\n");
    assert!(ok, "{stderr}");
    assert_eq!(written, "2.5\n0.5\n");
    assert!(stdout.starts_with("Prob. model for test data: target value = predicted value + z,\n"), "{stdout}");
    assert!(stdout.contains("sigma=0.25\nMean squared error = 0 (regression)\n"), "{stdout}");
    let plain = nu_svr.replace("probA 0.25\n", "");
    let (ok, _, _, stderr) = predict_with(&dir, &["-b", "1"], &plain, "2.5 1:1\n");
    assert!(!ok && stderr.contains("svm_type nu_svr, trained without -b 1"), "{stderr}");
    let (ok, _, _, stderr) = predict_with(&dir, &["-b", "2"], &plain, "2.5 1:1\n");
    assert!(!ok && stderr.contains("-b: '2' is not 0 or 1"), "{stderr}");
}
