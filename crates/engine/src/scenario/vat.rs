//! VAT ID scenarios: create then get, the same id read back, isolation between organizations, an
//! unknown id.

use super::{absent_uuid, expect_client_error, pretty, Bodies};
use crate::case::{case_fn, Abort, Case, CaseCx, Given, Outcome};
use crate::schema::OperationId;
use serde_json::Value;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "vat.create-then-get",
            OperationId::CreateVatId,
            &[
                "VAT-RESPONSE",
                "VAT-COUNTERPART-MATCH",
                "VAT-GET-SAME-ID",
                "VAT-ROUNDTRIP",
            ],
            case_fn(|cx| Box::pin(vat_create_then_get(cx))),
        )
        .sends(&[OperationId::GetVatId])
        .writes()
        .requests(2),
        Case::new(
            "vat.isolated-between-organizations",
            OperationId::GetVatId,
            &["FIN-ORG-ISOLATION"],
            case_fn(|cx| Box::pin(vat_isolation(cx))),
        )
        .sends(&[OperationId::CreateVatId])
        .other_organization()
        .writes()
        .requests(2),
        Case::new(
            "vat.get-unknown",
            OperationId::GetVatId,
            &["VAT-GET-UNKNOWN"],
            case_fn(|cx| Box::pin(vat_get_unknown(cx))),
        ),
    ]
}

/// The counterpart the VAT ID requests name (the table's fixture of create VAT ID).
fn counterpart(cx: &CaseCx) -> String {
    cx.run.path_values(OperationId::CreateVatId, &[]).concat()
}

/// A VAT ID value unique to the run (its tag, not the seed alone: a rerun with the same seed
/// against a persistent target gets other values): "DE" and nine digits.
pub(super) fn vat_value(cx: &CaseCx, salt: &str) -> String {
    format!("DE{:09}", cx.run.unique_number(salt, 1_000_000_000))
}

async fn create_vat(cx: &mut CaseCx, value: &str) -> Result<Option<(Value, Value)>, Abort> {
    let body = Bodies::new(&cx.run).vat_id(value);
    let request = cx.call(OperationId::CreateVatId);
    let response = cx.send(request.json(body.clone())).await?;
    if !cx
        .expect()
        .success(&response, "GEN-VALID-ACCEPTED", "a valid VAT ID")
    {
        return Ok(None);
    }
    Ok(response.json.map(|j| (body, j)))
}

async fn vat_create_then_get(cx: &mut CaseCx) -> Outcome {
    let value = vat_value(cx, "vat-1");
    let Some((sent, created)) = create_vat(cx, &value).await? else {
        return Ok(());
    };
    let cp = counterpart(cx);
    check_counterpart(cx, &created, &cp, "the created VAT ID");
    roundtrip(cx, &sent, &created, "the created VAT ID's answer");
    let Some(id) = created.get("id").and_then(Value::as_str).map(str::to_owned) else {
        cx.finding("VAT-RESPONSE", "the created VAT ID has no id");
        return Ok(());
    };
    let response = cx.send(cx.call(OperationId::GetVatId).ids(&[&id])).await?;
    if !cx.expect().success(
        &response,
        "VAT-GET-SAME-ID",
        "getting the VAT ID just created",
    ) {
        return Ok(());
    }
    let read = response.json.unwrap_or_default();
    cx.judged("VAT-GET-SAME-ID");
    let read_id = read.get("id").and_then(Value::as_str);
    if !read_id.is_some_and(|got| super::same_id(got, &id)) {
        cx.finding_diff(
            "VAT-GET-SAME-ID",
            "the VAT ID read back has another id",
            &id,
            &read["id"].to_string(),
        );
    }
    check_counterpart(cx, &read, &cp, "the VAT ID read back");
    roundtrip(cx, &sent, &read, "the VAT ID read back");
    Ok(())
}

/// The value, country and type of a VAT ID as `sent` (canonical values: no normalisation
/// explains a change). A field missing from the answer is the schema's finding, not this one's.
fn roundtrip(cx: &mut CaseCx, sent: &Value, got: &Value, what: &str) {
    let shown = ["value", "country", "type"]
        .into_iter()
        .filter(|k| got.get(k).is_some());
    let shown: Vec<&str> = shown.collect();
    let pick = |v: &Value| -> Value {
        shown
            .iter()
            .map(|k| ((*k).to_owned(), v[k].clone()))
            .collect()
    };
    let (expected, actual) = (pretty(&pick(sent)), pretty(&pick(got)));
    cx.judged("VAT-ROUNDTRIP");
    if expected != actual {
        cx.finding_diff(
            "VAT-ROUNDTRIP",
            format!("{what} differs from what was sent"),
            &expected,
            &actual,
        );
    }
}

fn check_counterpart(cx: &mut CaseCx, vat: &Value, counterpart: &str, what: &str) {
    let got = vat.get("counterpart_id").and_then(Value::as_str);
    cx.judged("VAT-COUNTERPART-MATCH");
    if got.is_some_and(|g| !super::same_id(g, counterpart)) {
        cx.finding_diff(
            "VAT-COUNTERPART-MATCH",
            format!("{what} names another counterpart"),
            counterpart,
            got.unwrap_or(""),
        );
    }
}

async fn vat_isolation(cx: &mut CaseCx) -> Outcome {
    let value = vat_value(cx, "vat-2");
    let Some((_, created)) = create_vat(cx, &value).await? else {
        return Ok(());
    };
    let Some(id) = created.get("id").and_then(Value::as_str).map(str::to_owned) else {
        return Ok(());
    };
    let other = cx
        .run
        .finops()
        .and_then(|f| f.other_organization_id.clone())
        .unwrap_or_default();
    let request = cx
        .call(OperationId::GetVatId)
        .ids(&[&id])
        .organization(Given::Value(other));
    let response = cx.send(request).await?;
    // Any success is the first organization's VAT ID read under the other, unless it names
    // another one: ids compared as UUIDs (a target may answer them in upper case).
    let leaked = response.is_success()
        && response
            .pointer("/id")
            .and_then(Value::as_str)
            .is_none_or(|got| super::same_id(got, &id));
    cx.ensure(!leaked, "FIN-ORG-ISOLATION", || {
        format!(
            "a VAT ID of one organization was read under another ({})",
            response.status
        )
    });
    Ok(())
}

async fn vat_get_unknown(cx: &mut CaseCx) -> Outcome {
    let absent = absent_uuid("covenant-vat");
    let request = cx.call(OperationId::GetVatId).ids(&[&absent]);
    let response = cx.send(request).await?;
    expect_client_error(
        cx,
        &response,
        "VAT-GET-UNKNOWN",
        "getting a VAT ID that does not exist",
    );
    Ok(())
}
