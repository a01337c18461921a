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
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "error 0.0000 % (200 examples)");
    let pred = dir.join("p.txt");
    assert!(bin().arg("predict").arg(&data).arg(&model).arg(&pred).status().unwrap().success());
    assert_eq!(std::fs::read_to_string(&pred).unwrap().lines().count(), 200);
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
}
