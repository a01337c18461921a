//! The model-file reader and writer: LIBSVM's files of every type, and the files it refuses.

use super::*;

const GOOD: &str = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 3\ntotal_sv 3\nrho 0.1 -0.2 0.3\n\
                    label 9 -2 5\nnr_sv 1 1 1\nSV\n1 0.5 0:1 3:2\n-1 0.5 1:1\n-0.5 -1 2:1.5\n";

fn read(text: &str, base: IndexBase) -> Result<LibsvmModel> {
    LibsvmModel::read(text.as_bytes(), base)
}

fn line_of(e: Error) -> (usize, String) {
    match e {
        Error::Parse { line, message } => (line, message),
        other => panic!("not a parse error: {other}"),
    }
}

#[test]
fn reads_zero_based_libsvm_models_and_keeps_the_class_order() {
    let m = read(GOOD, IndexBase::Zero).unwrap();
    assert_eq!(m.labels, vec![9, -2, 5]);
    assert_eq!(m.sv.indices(), vec![0, 3, 1, 2]);
    assert_eq!(m.sv_coef, vec![1.0, -1.0, -0.5, 0.5, 0.5, -1.0]);
    let (line, message) = line_of(read(GOOD, IndexBase::One).unwrap_err());
    assert_eq!(line, 10);
    assert!(message.contains("read it as zero-based"), "{message}");
    assert!(read(GOOD, IndexBase::Auto).is_err());
    let mut text = Vec::new();
    m.write(&mut text, IndexBase::Zero).unwrap();
    assert_eq!(read(std::str::from_utf8(&text).unwrap(), IndexBase::Zero).unwrap(), m);
}

#[test]
fn header_counts_are_compared_with_the_content_never_allocated() {
    for (from, to, line, says) in [
        ("nr_class 3", "nr_class 1000000000000000000", 6, "rho has 3 values"),
        ("total_sv 3", "total_sv 18446744073709551615", 8, "nr_sv adds up to 3"),
        ("nr_sv 1 1 1", "nr_sv 18446744073709551615 18446744073709551615 2", 8, "nr_sv adds up to"),
        ("nr_class 3", "nr_class 18446744073709551616", 4, "is not a count"),
        ("label 9 -2 5", "label 9 -2", 7, "label lists 2 classes"),
        ("3:2", "2147483648:2", 10, "out of range"),
        ("gamma 0.5", "gamma inf", 3, "must be a positive number"),
        ("rho 0.1 -0.2 0.3", "rho 0.1 -0.2 1e999", 6, "rho holds inf"),
    ] {
        let (l, m) = line_of(read(&GOOD.replacen(from, to, 1), IndexBase::Zero).unwrap_err());
        assert_eq!(l, line, "{to}: {m}");
        assert!(m.contains(says), "{to}: {m}");
    }
    let (l, m) = line_of(
        read(&GOOD.replacen("total_sv 3", "total_sv 4", 1).replacen("nr_sv 1 1 1", "nr_sv 2 1 1", 1), IndexBase::Zero)
            .unwrap_err(),
    );
    assert_eq!((l, m.contains("ends after 3 of the 4")), (12, true), "{m}");
}

#[test]
fn unknown_types_name_what_is_read() {
    for (from, to, line, says) in [
        (
            "svm_type c_svc",
            "svm_type nu-svc",
            1,
            "unknown svm_type 'nu-svc': expected one of 'c_svc', 'nu_svc', 'one_class', 'epsilon_svr', 'nu_svr'",
        ),
        ("svm_type c_svc", "svm_type 1", 1, "unknown svm_type '1'"),
        ("kernel_type rbf", "kernel_type poly", 2, "expected one of 'linear', 'polynomial', 'rbf', 'sigmoid'"),
    ] {
        let (l, m) = line_of(read(&GOOD.replacen(from, to, 1), IndexBase::Zero).unwrap_err());
        assert_eq!(l, line, "{to}: {m}");
        assert!(m.contains(says), "{to}: {m}");
    }
    let text = GOOD.replacen("kernel_type rbf\ngamma 0.5", "kernel_type polynomial\ndegree 2\ngamma 0.5\ncoef0 1", 1);
    let m = read(&text, IndexBase::Zero).unwrap();
    assert_eq!(m.kernel, KernelSpec::Poly { degree: 2, gamma: 0.5, coef0: 1.0 });
    let mut written = Vec::new();
    m.write(&mut written, IndexBase::Zero).unwrap();
    assert!(String::from_utf8(written).unwrap().starts_with("svm_type c_svc\nkernel_type polynomial\n"));
}

#[test]
fn precomputed_models_name_training_serials() {
    let text = "svm_type epsilon_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 2\nrho 0.5\nSV\n1 0:3\n-1 0:1\n";
    let m = read(text, IndexBase::One).unwrap();
    assert_eq!(m.sv_indices, vec![2, 0]);
    for bad in ["1 0:0", "1 0:2.5", "1 1:3", "1 0:3 1:2", "1"] {
        let t = text.replacen("1 0:3", bad, 1);
        assert_eq!(line_of(read(&t, IndexBase::One).unwrap_err()).0, 7, "{bad}");
    }
}

const NU_SVC: &str = "svm_type nu_svc\nkernel_type rbf\ngamma 0.5\nnr_class 3\ntotal_sv 3\nrho 0.1 -0.2 0.3\n\
                      label 9 -2 5\nprobA -1.5 -2 -0.25\nprobB 0.125 -0.5 0\nnr_sv 1 1 1\nSV\n\
                      1 0.5 1:1 4:2\n-1 0.5 2:1\n-0.5 -1 3:1.5\n";
const ONE_CLASS: &str = "svm_type one_class\nkernel_type polynomial\ndegree 2\ngamma 0.25\ncoef0 1\nnr_class 2\n\
                         total_sv 3\nrho 0.75\nprob_density_marks -0.9 -0.7 -0.5 -0.3 -0.1 0.1 0.3 0.5 0.7 0.9\n\
                         SV\n0.5 1:1 2:-1\n1 2:0.25\n0.125 3:4\n";
const NU_SVR: &str = "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho -0.5\nprobA 0.0625\nSV\n\
                      2.5 1:1\n-2.5 2:3\n";

fn written(m: &LibsvmModel) -> String {
    let mut text = Vec::new();
    m.write(&mut text, IndexBase::One).unwrap();
    String::from_utf8(text).unwrap()
}

#[test]
fn the_nu_and_one_class_types_read_and_write_as_libsvm_lays_them_out() {
    let m = read(NU_SVC, IndexBase::One).unwrap();
    assert_eq!(m.svm_type, SvmType::NuSvc);
    assert_eq!((m.labels.clone(), m.n_support.clone()), (vec![9, -2, 5], vec![1, 1, 1]));
    assert_eq!((m.prob_a.clone(), m.prob_b.clone()), (vec![-1.5, -2.0, -0.25], vec![0.125, -0.5, 0.0]));
    assert_eq!(m.sv_coef, vec![1.0, -1.0, -0.5, 0.5, 0.5, -1.0]);

    let m = read(ONE_CLASS, IndexBase::One).unwrap();
    assert_eq!(m.svm_type, SvmType::OneClass);
    assert_eq!(m.kernel, KernelSpec::Poly { degree: 2, gamma: 0.25, coef0: 1.0 });
    assert!(m.labels.is_empty() && m.n_support.is_empty() && m.prob_b.is_empty());
    assert_eq!((m.rho.clone(), m.sv_coef.clone()), (vec![0.75], vec![0.5, 1.0, 0.125]));
    assert_eq!(m.prob_a.len(), DENSITY_MARKS); // the marks
    assert_eq!(m.sv.indices(), vec![0, 1, 1, 2]);

    let m = read(NU_SVR, IndexBase::One).unwrap();
    assert_eq!((m.svm_type, m.prob_a.clone(), m.rho.clone()), (SvmType::NuSvr, vec![0.0625], vec![-0.5]));

    // written back line for line, in LIBSVM's order of header lines
    for text in [NU_SVC, ONE_CLASS, NU_SVR] {
        let m = read(text, IndexBase::One).unwrap();
        assert_eq!(written(&m), text);
        assert_eq!(read(&written(&m), IndexBase::One).unwrap(), m);
    }
    // without probability estimates, and zero-based
    let plain =
        ONE_CLASS.lines().filter(|l| !l.starts_with("prob_density_marks")).collect::<Vec<_>>().join("\n") + "\n";
    let m = read(&plain, IndexBase::One).unwrap();
    assert!(m.prob_a.is_empty());
    assert_eq!(written(&m), plain);
    let mut zero = Vec::new();
    m.write(&mut zero, IndexBase::Zero).unwrap();
    assert!(String::from_utf8(zero.clone()).unwrap().ends_with("SV\n0.5 0:1 1:-1\n1 1:0.25\n0.125 2:4\n"));
    assert_eq!(LibsvmModel::read(&zero[..], IndexBase::Zero).unwrap(), m);
}

#[test]
fn a_header_and_a_body_of_different_types_are_refused_by_line() {
    let one_class_body = ONE_CLASS.replacen("svm_type one_class", "svm_type nu_svc", 1);
    let nu_svr_as_svc = NU_SVR.replacen("svm_type nu_svr", "svm_type nu_svc", 1);
    let svc_as_one_class = NU_SVC.replacen("svm_type nu_svc", "svm_type one_class", 1);
    let svc_two_as_one_class =
        NU_SVC.replacen("svm_type nu_svc", "svm_type one_class", 1).replacen("nr_class 3", "nr_class 2", 1);
    for (text, line, says) in [
        // a nu_svc header over a one-class body: no label (nor nr_sv), and marks it cannot use
        (one_class_body.as_str(), 9, "a nu_svc model has no prob_density_marks line (svm_type on line 1)"),
        (
            &one_class_body.replacen("prob_density_marks -0.9 -0.7 -0.5 -0.3 -0.1 0.1 0.3 0.5 0.7 0.9\n", "", 1),
            9,
            "the header has no label line, which a nu_svc model (svm_type on line 1) has before SV",
        ),
        (&nu_svr_as_svc, 7, "the header has no label line, which a nu_svc model"),
        (&nu_svr_as_svc.replacen("SV\n", "label 1 -1\nSV\n", 1), 8, "no nr_sv line"),
        // a one_class header over a classifier's body
        (&svc_as_one_class, 4, "nr_class is 3; a one_class model has nr_class 2 (svm_type on line 1)"),
        (&svc_two_as_one_class, 6, "rho has 3 values; a one_class model (svm_type on line 1) has one"),
        (&svc_two_as_one_class.replacen("rho 0.1 -0.2 0.3", "rho 0.1", 1), 7, "a one_class model has no label line"),
        (&ONE_CLASS.replacen("SV\n", "nr_sv 1 2\nSV\n", 1), 10, "a one_class model has no nr_sv line"),
        (&ONE_CLASS.replacen("SV\n", "probA 0.5\nSV\n", 1), 10, "a one_class model has no probA line"),
        (&ONE_CLASS.replacen("SV\n", "probB 0.5\nSV\n", 1), 10, "a one_class model has no probB line"),
        (&NU_SVR.replacen("probA", "prob_density_marks", 1), 6, "a nu_svr model has no prob_density_marks line"),
        (&NU_SVR.replacen("SV\n", "label 1 2\nSV\n", 1), 7, "a nu_svr model has no label line"),
        (&NU_SVR.replacen("rho -0.5", "rho -0.5 1", 1), 5, "rho has 2 values; a nu_svr model"),
        // one coefficient per line in a one-class body, nr_class - 1 in a classifier's
        (&ONE_CLASS.replacen("\n1 2:0.25", "\n1 1 2:0.25", 1), 12, "a coefficient too many for nr_class on line 6"),
        (&NU_SVC.replacen("-1 0.5 2:1", "-1 2:1", 1), 13, "expected 2 coefficient(s) (nr_class - 1"),
    ] {
        let (l, m) = line_of(read(text, IndexBase::One).unwrap_err());
        assert_eq!(l, line, "{m}\n{text}");
        assert!(m.contains(says), "{m}\n{text}");
    }
}

#[test]
fn density_marks_and_one_class_counts_are_checked_before_use() {
    let marks = "prob_density_marks -0.9 -0.7 -0.5 -0.3 -0.1 0.1 0.3 0.5 0.7 0.9";
    for (to, line, says) in [
        ("prob_density_marks -0.9 -0.7", 9, "prob_density_marks has 2 values; LIBSVM's one-class model has 10"),
        (&format!("{marks} 1.1"), 9, "has 11 values"),
        ("prob_density_marks", 9, "prob_density_marks has no value"),
        (&marks.replacen("0.9", "nan", 1), 9, "prob_density_marks holds NaN"),
        (&marks.replacen("-0.1", "x", 1), 9, "prob_density_marks: 'x' is not a number"),
        (&format!("{marks}\n{marks}"), 10, "prob_density_marks is given twice (first on line 9)"),
    ] {
        let (l, m) = line_of(read(&ONE_CLASS.replacen(marks, to, 1), IndexBase::One).unwrap_err());
        assert_eq!(l, line, "{to}: {m}");
        assert!(m.contains(says), "{to}: {m}");
    }
    for (from, to, line, says) in [
        ("total_sv 3", "total_sv 18446744073709551615", 13, "ends after 3 of the 18446744073709551615"),
        ("total_sv 3", "total_sv 2", 13, "more support vectors than total_sv 2 (line 7)"),
        ("nr_class 2", "nr_class 18446744073709551615", 6, "a one_class model has nr_class 2"),
        ("rho 0.75", "rho", 8, "rho has no value"),
        ("0.125 3:4", "inf 3:4", 13, "coefficient 'inf' is not a finite number"),
    ] {
        let (l, m) = line_of(read(&ONE_CLASS.replacen(from, to, 1), IndexBase::One).unwrap_err());
        assert_eq!(l, line, "{to}: {m}");
        assert!(m.contains(says), "{to}: {m}");
    }
    // a model built in memory with the wrong number of marks is not written
    let mut m = read(ONE_CLASS, IndexBase::One).unwrap();
    m.prob_a.pop();
    assert!(m.write(Vec::new(), IndexBase::One).unwrap_err().to_string().contains("10 probability density marks"));
}

#[test]
fn type_errors_name_the_type_as_a_sentence_does() {
    let svr = "svm_type epsilon_svr\nkernel_type linear\nnr_class 3\ntotal_sv 1\nrho 0 0 0\nSV\n1 1:1\n";
    let (l, m) = line_of(read(svr, IndexBase::One).unwrap_err());
    assert_eq!((l, m.as_str()), (3, "nr_class is 3; an epsilon_svr model has nr_class 2 (svm_type on line 1)"));
}
