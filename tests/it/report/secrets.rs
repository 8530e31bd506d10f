//! Defence in depth: a secret that reached the record is masked in every written file.

use super::sample;
use covenant::report::write_all_with;

#[test]
fn a_secret_in_a_body_is_masked_in_every_file() {
    let secret = "tok-<s3cr3t>&\"quoted\"".to_owned();
    let mut run = sample::run();
    let exchange = &mut run.cases[1].exchanges[0];
    if let Some(response) = exchange.response.as_mut() {
        response.body = format!("{{\"echo\":\"Bearer {secret}\"}}");
    }
    exchange.request.curl = format!("curl -H 'authorization: Bearer {secret}'");
    run.cases[1].findings[0].message = format!("the token {secret} was echoed");

    let dir = sample::scratch_dir("secrets");
    let written = write_all_with(
        &run,
        &dir,
        std::slice::from_ref(&secret),
        &sample::catalogue(),
    )
    .unwrap();

    let forms = [
        secret.clone(),
        "tok-&lt;s3cr3t&gt;".to_owned(),
        "tok-&#60;s3cr3t&#62;".to_owned(),
        "s3cr3t".to_owned(),
    ];
    for path in &written {
        let text = sample::read(path);
        for form in &forms {
            assert!(
                !text.contains(form.as_str()),
                "{} holds {form}",
                path.display()
            );
        }
        let masked = text.contains("***") || text.contains("\\*\\*\\*");
        assert!(masked, "{} shows no mask", path.display());
    }
    let json: covenant::verdict::RunRecord =
        serde_json::from_str(&sample::read(&dir.join("report.json"))).expect("still valid JSON");
    assert_eq!(
        json.cases[1].findings[0].message,
        "the token *** was echoed"
    );
}
