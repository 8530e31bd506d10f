//! What HTTP requires of a server that a request of its own shows: header names are read
//! whatever their case (RFC 9110 §5.1), and so are media types and their parameter names
//! (RFC 9110 §8.3.1). The spec invokes HTTP ("a partner-facing HTTP/JSON interface"), so a
//! server that tells the spellings apart breaks the contract.
//!
//! Each spelling is judged beside the same request in the usual spelling (`Control::judge`):
//! a target that refuses both refuses for another reason, and only a refusal of the variant
//! alone fails.

use super::Bodies;
use crate::case::{case_fn, Case, CaseCx, Control, Given, Outcome, Outgoing, Variant};
use crate::schema::{Area, OperationId};

const NAME_CASE: &str = "HTTP-HEADER-NAME-CASE";
const MEDIA_TYPE_CASE: &str = "HTTP-MEDIA-TYPE-CASE";

/// The media type of a JSON body in other cases, its parameter name and value included.
const MEDIA_TYPE_SPELLINGS: [&str; 2] = ["Application/JSON; Charset=UTF-8", "APPLICATION/JSON"];

pub fn cases() -> Vec<Case> {
    let names = |area: Area, op: OperationId| {
        let case = Case::new(
            &format!("standards.header-name-case.{}", area_name(area)),
            op,
            &[NAME_CASE],
            case_fn(move |cx| Box::pin(header_name_case(cx, op))),
        )
        .requests(2);
        match area {
            Area::Finance => case,
            Area::Banking => case.own_organization(),
        }
    };
    vec![
        names(Area::Finance, OperationId::ListEvents),
        names(Area::Banking, OperationId::ListTransactions),
        Case::new(
            "standards.media-type-case",
            OperationId::CreateReceivable,
            &[MEDIA_TYPE_CASE],
            case_fn(|cx| Box::pin(media_type_case(cx))),
        )
        .writes()
        .requests(1 + MEDIA_TYPE_SPELLINGS.len()),
    ]
}

fn area_name(area: Area) -> &'static str {
    match area {
        Area::Finance => "finance",
        Area::Banking => "banking",
    }
}

/// A read of `op` with its headers as the table gives them (the finance version and
/// organization headers, or the banking organization header, and the token), their names in
/// lower case (the control) and in title case (the variant: `Authorization`,
/// `X-Finops-Version`, `X-Organization-Id`).
async fn header_name_case(cx: &mut CaseCx, op: OperationId) -> Outcome {
    let organization = match op.area() {
        Area::Finance => Given::Profile,
        Area::Banking => match cx.run.banking().and_then(|b| b.organization_id.clone()) {
            Some(org) => Given::value(org),
            None => Given::Omitted,
        },
    };
    let control = cx.call(op).organization(organization).request();
    let names: Vec<&str> = control.headers.iter().map(|(n, _)| n.as_str()).collect();
    let names = names.join(", ");
    let variant = Variant::new(
        format!("the same read with the header names {names} in title case"),
        NAME_CASE,
        control.clone().title_case_names(),
    );
    let control = Control::new(
        format!("the read with the header names {names} in lower case"),
        Outgoing {
            operation: op,
            request: control,
        },
    );
    control.judge(cx, vec![variant]).await
}

/// A minimal quote sent as `application/json` (the control) and in each spelling of
/// [`MEDIA_TYPE_SPELLINGS`], the same bytes.
async fn media_type_case(cx: &mut CaseCx) -> Outcome {
    let op = OperationId::CreateReceivable;
    let body = Bodies::new(&cx.run).quote();
    let bytes = serde_json::to_vec(&body).expect("a JSON value serialises");
    let sent = |content_type: &str| {
        cx.call(op)
            .request()
            .spelled(body.clone(), bytes.clone(), content_type)
    };
    let control = Control::new(
        "the minimal quote sent as application/json",
        Outgoing {
            operation: op,
            request: sent("application/json"),
        },
    );
    let variants = MEDIA_TYPE_SPELLINGS
        .iter()
        .map(|spelling| {
            Variant::new(
                format!("the same quote sent as {spelling}"),
                MEDIA_TYPE_CASE,
                sent(spelling),
            )
        })
        .collect();
    control.judge(cx, variants).await
}
