//! Counterpart VAT IDs: create and get, isolated per organization.

use super::{gate_org, merge, not_found, owns, parse_body, path_uuid};
use crate::fault::Fault;
use crate::reply::{self, FieldError, Reply};
use crate::store::{App, VatId};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use std::sync::Arc;

/// The VAT ID country codes of the spec, copied exactly.
pub const COUNTRIES: &[&str] = &[
    "AF", "AX", "AL", "DZ", "AS", "AD", "AO", "AI", "AQ", "AG", "AR", "AM", "AW", "AU", "AT", "AZ",
    "BS", "BH", "BD", "BB", "BY", "BE", "BZ", "BJ", "BM", "BT", "BO", "BA", "BW", "BV", "BR", "IO",
    "BN", "BG", "BF", "BI", "KH", "CM", "CA", "IC", "CV", "KY", "CF", "EA", "TD", "CL", "CN", "CX",
    "CC", "CO", "KM", "CG", "CD", "CK", "CR", "CI", "HR", "CU", "CY", "CZ", "DK", "DJ", "DM", "DO",
    "EC", "EG", "SV", "GQ", "ER", "EE", "SZ", "ET", "FK", "FO", "FJ", "FI", "FR", "GF", "PF", "TF",
    "GA", "GM", "GE", "DE", "GH", "GI", "GR", "GL", "GD", "GP", "GU", "GT", "GG", "GN", "GW", "GY",
    "HT", "HM", "VA", "HN", "HK", "HU", "IS", "IN", "ID", "IR", "IQ", "IE", "IM", "IL", "IT", "JM",
    "JP", "JE", "JO", "KZ", "KE", "KI", "KP", "KR", "KW", "KG", "LA", "LV", "LB", "LS", "LR", "LY",
    "LI", "LT", "LU", "MO", "MG", "MW", "MY", "MV", "ML", "MT", "MH", "MQ", "MR", "MU", "YT", "MX",
    "FM", "MD", "MC", "MN", "ME", "MS", "MA", "MZ", "MM", "NA", "NR", "NP", "NL", "AN", "NC", "NZ",
    "NI", "NE", "NG", "NU", "NF", "MP", "MK", "NO", "OM", "PK", "PW", "PS", "PA", "PG", "PY", "PE",
    "PH", "PN", "PL", "PT", "PR", "QA", "RE", "RO", "RU", "RW", "SH", "KN", "LC", "PM", "VC", "WS",
    "SM", "ST", "SA", "SN", "RS", "SC", "SL", "SG", "SK", "SI", "SB", "SO", "ZA", "SS", "GS", "ES",
    "LK", "SD", "SR", "SJ", "SE", "CH", "SY", "TW", "TJ", "TZ", "TH", "TL", "TG", "TK", "TO", "TT",
    "TN", "TR", "TM", "TC", "TV", "UG", "UA", "AE", "GB", "US", "UM", "UY", "UZ", "VU", "VE", "VN",
    "VG", "VI", "WF", "EH", "YE", "ZM", "ZW", "BL", "BQ", "CW", "MF", "SX",
];

/// The VAT ID types of the spec, copied exactly.
pub const VAT_TYPES: &[&str] = &[
    "ae_trn",
    "au_abn",
    "au_arn",
    "bg_uic",
    "br_cnpj",
    "br_cpf",
    "ca_bn",
    "ca_gst_hst",
    "ca_pst_bc",
    "ca_pst_mb",
    "ca_pst_sk",
    "ca_qst",
    "ch_vat",
    "cl_tin",
    "es_cif",
    "eu_oss_vat",
    "eu_vat",
    "gb_vat",
    "ge_vat",
    "hk_br",
    "hu_tin",
    "id_npwp",
    "il_vat",
    "in_gst",
    "is_vat",
    "jp_cn",
    "jp_rn",
    "kr_brn",
    "li_uid",
    "mx_rfc",
    "my_frp",
    "my_itn",
    "my_sst",
    "no_vat",
    "nz_gst",
    "ru_inn",
    "ru_kpp",
    "sa_vat",
    "sg_gst",
    "sg_uen",
    "si_tin",
    "th_vat",
    "tw_vat",
    "ua_vat",
    "us_ein",
    "za_vat",
    "unknown",
];

/// value, country and type of a VAT ID create body (all three required here).
fn validate_vat(app: &App, body: &Value) -> Result<(String, String, String), Vec<FieldError>> {
    let f = &app.faults;
    let Some(map) = body.as_object() else {
        return Err(vec![FieldError::whole_body(
            "the body must be a JSON object",
            "model_attributes_type",
        )]);
    };
    let mut problems = Vec::new();
    let mut text = |name: &str, ok: &dyn Fn(&str) -> bool, msg: &str| match map.get(name) {
        None => {
            problems.push(FieldError::body(name, "Field required", "missing"));
            String::new()
        }
        Some(Value::String(s)) if ok(s) => s.clone(),
        Some(_) => {
            problems.push(FieldError::body(name, msg, "value_error"));
            String::new()
        }
    };
    let value = text(
        "value",
        &|s| {
            // The length a faulty server counts instead of code points: UTF-8 bytes, or code
            // points after NFD decomposition (a precomposed Latin letter counted as two).
            let precomposed = |c: char| ('\u{C0}'..='\u{17F}').contains(&c);
            let len = if f.has(Fault::LengthInBytes) {
                s.len()
            } else if f.has(Fault::LengthNfdCounted) {
                s.chars().map(|c| 1 + usize::from(precomposed(c))).sum()
            } else {
                s.chars().count()
            };
            f.has(Fault::VatValueMaxIgnored) || len <= 32
        },
        "String should have at most 32 characters",
    );
    let country = text(
        "country",
        &|s| {
            let refused = f.has(Fault::ListedValueRefused) && s == "ZW";
            // Under its fault, a code read regardless of case, as a case-insensitive enum binder
            // reads it.
            let code = match f.has(Fault::VatCountryLowerCaseAccepted) {
                true => s.to_ascii_uppercase(),
                false => s.to_owned(),
            };
            f.has(Fault::VatCountryAny) || (COUNTRIES.contains(&code.as_str()) && !refused)
        },
        "Input should be one of the listed ISO 3166 alpha-2 codes",
    );
    let kind = text(
        "type",
        &|s| f.has(Fault::VatTypeAny) || VAT_TYPES.contains(&s),
        "Input should be one of the listed VAT ID types",
    );
    let country = match f.has(Fault::VatCountryLowerCaseAccepted) {
        true => country.to_ascii_uppercase(),
        false => country,
    };
    if problems.is_empty() {
        Ok((value, country, kind))
    } else {
        Err(problems)
    }
}

fn vat_json(app: &App, v: &VatId) -> Value {
    let counterpart_id = if app.faults.has(Fault::VatCounterpartWrong) {
        v.org
    } else {
        v.counterpart_id
    };
    let mut out = json!({
        "id": v.id,
        "counterpart_id": counterpart_id,
        "value": v.value,
        "country": v.country,
        "type": v.kind,
    });
    if app.faults.has(Fault::VatResponseTypeMissing) {
        out.as_object_mut().map(|m| m.remove("type"));
    }
    out
}

pub async fn create_vat(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(counterpart): Path<String>,
    body: Bytes,
) -> Response {
    merge(create_vat_inner(&app, &headers, &counterpart, &body))
}

fn create_vat_inner(app: &App, headers: &HeaderMap, counterpart: &str, body: &Bytes) -> Reply {
    let org = gate_org(app, headers)?;
    let counterpart_id = path_uuid(app, "counterpart_id", counterpart)?;
    let value = parse_body(app, body)?;
    let (value, country, kind) =
        validate_vat(app, &value).map_err(|p| reply::validation(&app.faults, &p))?;
    let mut db = app.db();
    match db.counterparts.get(&counterpart_id).map(|c| c.org) {
        Some(owner) if owns(app, owner, org) => {}
        Some(_) if app.faults.has(Fault::Fin403MessageNumber) => {
            let body = json!({ "error": { "message": 403 } });
            return Err(reply::json(StatusCode::FORBIDDEN, &body));
        }
        _ => return Err(not_found(app, "counterpart")),
    }
    let id = db.uuid();
    let stored_kind = if app.faults.has(Fault::VatTypeLost) {
        "unknown".to_owned()
    } else {
        kind
    };
    let vat = VatId {
        id,
        org,
        counterpart_id,
        value,
        country,
        kind: stored_kind,
    };
    db.vat_ids.push(vat.clone());
    db.record(
        org,
        "counterpart_tax_id",
        "counterpart_tax_id.created",
        json!({ "id": id, "counterpart_id": counterpart_id }),
    );
    drop(db);
    let mut answer = vat_json(app, &vat);
    if app.faults.has(Fault::VatCreateValueTruncated) {
        let mut value = vat.value.clone();
        value.pop();
        answer["value"] = json!(value);
    }
    Ok(reply::json(StatusCode::CREATED, &answer))
}

pub async fn get_vat(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((counterpart, vat)): Path<(String, String)>,
) -> Response {
    merge(get_vat_inner(&app, &headers, &counterpart, &vat))
}

fn get_vat_inner(app: &App, headers: &HeaderMap, counterpart: &str, vat: &str) -> Reply {
    let org = gate_org(app, headers)?;
    let counterpart_id = path_uuid(app, "counterpart_id", counterpart)?;
    let vat_id = path_uuid(app, "vat_id", vat)?;
    let f = &app.faults;
    let found = {
        let db = app.db();
        let isolated = |v: &&VatId| v.org == org || f.has(Fault::OrgIsolationBroken);
        let under = |v: &&VatId| v.counterpart_id == counterpart_id;
        if f.has(Fault::VatGetReturnsFirst) {
            db.vat_ids.iter().filter(isolated).find(under).cloned()
        } else {
            db.vat_ids
                .iter()
                .filter(isolated)
                .filter(under)
                .find(|v| v.id == vat_id)
                .cloned()
        }
    };
    let found = found.map(|vat| cut_at_limit(app, newest_after_two(app, vat)));
    let Some(vat) = found else {
        if f.has(Fault::VatGetUnknown200) {
            return Ok(reply::json(StatusCode::OK, &json!({})));
        }
        return Err(not_found(app, "VAT ID"));
    };
    if f.has(Fault::NonJsonBody) {
        let text = format!(
            "VatId {{ id: {}, value: {:?}, country: {} }}",
            vat.id, vat.value, vat.country
        );
        return Ok(reply::with_type(
            StatusCode::OK,
            text.into_bytes(),
            "application/json",
        ));
    }
    if f.has(Fault::JsonBom) {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(serde_json::to_vec(&vat_json(app, &vat)).expect("a Value serialises"));
        return Ok(reply::with_type(StatusCode::OK, bytes, "application/json"));
    }
    Ok(reply::json(StatusCode::OK, &vat_json(app, &vat)))
}

/// Under the `vat-value-at-limit-read-cut-after-writes` fault, a VAT ID whose value is 32
/// characters long (its stated limit), after which another was created for its counterpart (in
/// its organization), is read with its last character cut.
fn cut_at_limit(app: &App, mut vat: VatId) -> VatId {
    if !app.faults.has(Fault::VatLimitCutAfterWrites) || vat.value.chars().count() != 32 {
        return vat;
    }
    let db = app.db();
    let later = db
        .vat_ids
        .iter()
        .skip_while(|v| v.id != vat.id)
        .skip(1)
        .any(|v| v.org == vat.org && v.counterpart_id == vat.counterpart_id);
    if later {
        vat.value = vat.value.chars().take(31).collect();
    }
    vat
}

/// Under the `vat-read-shows-newest-after-two-creates` fault, a VAT ID after which two more
/// were created for its counterpart (in its organization) carries the newest one's value.
fn newest_after_two(app: &App, mut vat: VatId) -> VatId {
    if !app.faults.has(Fault::VatReadShowsNewest) {
        return vat;
    }
    let db = app.db();
    let same = |v: &&VatId| v.org == vat.org && v.counterpart_id == vat.counterpart_id;
    let later: Vec<&VatId> = db
        .vat_ids
        .iter()
        .skip_while(|v| v.id != vat.id)
        .skip(1)
        .filter(same)
        .collect();
    if let (true, Some(newest)) = (later.len() >= 2, later.last()) {
        vat.value = newest.value.clone();
    }
    vat
}
