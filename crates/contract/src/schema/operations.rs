//! The ten operations of the spec as typed data, parsed from `schemas/operations.json`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;

/// `schemas/operations.json` as shipped with this build.
pub const OPERATIONS_JSON: &str = include_str!("../../../../schemas/operations.json");

/// The two areas of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    /// `/finops/v1`: bearer tokens, `x-finops-version`, finance error bodies.
    Finance,
    /// `/embedded-banking/v1`: OAuth 2.0 client credentials, problem-details error bodies.
    Banking,
}

impl Area {
    /// The header that names the organization a request of the area acts for (the first an
    /// operation of the area takes): where a case gives an organization to an operation that
    /// takes none.
    pub fn organization(self) -> Option<&'static Param> {
        let ops = OperationId::ALL.into_iter().filter(|op| op.area() == self);
        ops.flat_map(|op| &op.operation().parameters)
            .find(|p| p.is_organization())
    }

    /// The path prefix every operation of the area carries.
    pub fn path_prefix(self) -> &'static str {
        match self {
            Area::Finance => "/finops/v1/",
            Area::Banking => "/embedded-banking/v1/",
        }
    }
}

/// HTTP methods used by the ten operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamLocation {
    Path,
    Query,
    Header,
}

/// One path, query or header parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// `None` when the spec does not show the name (the banking organization header).
    pub name: Option<String>,
    /// The profile key that names a parameter whose name the spec does not show.
    #[serde(
        rename = "x-name-from-profile",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub name_from_profile: Option<String>,
    #[serde(rename = "in")]
    pub location: ParamLocation,
    pub required: bool,
    /// A JSON Schema (2020-12) of the value.
    pub schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The rule the parameter's constraint comes from.
    #[serde(rename = "x-rule", default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The profile key whose value fills the parameter (`finops.counterpart_id`); `None`: the
    /// case gives the value (an id it made, a query).
    #[serde(rename = "x-fixture", default, skip_serializing_if = "Option::is_none")]
    pub fixture: Option<String>,
    /// The rule an invalid value of the parameter breaks, where the catalogue has one (what the
    /// generated parameter cases judge); `x-rule` is where its constraint comes from.
    #[serde(
        rename = "x-reject-rule",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub reject_rule: Option<String>,
    /// The status the spec states for an invalid value, where it states one (the banking
    /// organization header's 400); otherwise any refusal keeps the reject rule.
    #[serde(
        rename = "x-reject-status",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub reject_status: Option<u16>,
    /// The header names the organization a request acts for.
    #[serde(rename = "x-organization", default, skip_serializing_if = "is_false")]
    pub organization: bool,
    /// The profile key of the other organization the header may name (tenant isolation).
    #[serde(
        rename = "x-other-fixture",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub other_fixture: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl Param {
    /// Whether the parameter names the organization a request acts for.
    pub fn is_organization(&self) -> bool {
        self.organization
    }
}

/// A field of a valid request body that names a fixture of the profile (a counterpart, a VAT
/// rate): what a valid body needs beside the path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyFixture {
    /// The field's name, wherever it stands in the body (`vat_rate_id` of each line item).
    pub field: String,
    /// The profile key whose value fills it.
    #[serde(rename = "x-fixture")]
    pub fixture: String,
    /// Whether a valid body needs it; an optional one is left out where the profile gives none.
    pub required: bool,
}

/// The rule ids a list's page checks report under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListRules {
    /// A full read ends with a null next token, repeating no item and no token.
    pub ends: String,
    /// The first page's previous token is null.
    pub prev_first: String,
    /// No page holds more items than the limit asked.
    pub limit_max: String,
    /// A limit out of range is refused.
    pub limit_reject: String,
    /// Reads at different page sizes give the same items in the same order.
    pub agree: String,
    /// A token read twice gives the same page.
    pub reuse: String,
    /// A tampered token is refused.
    pub tampered: String,
    /// Every page but the last holds exactly `limit` items (finance only: a banking page
    /// shorter than `limit` does not mean the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_pages: Option<String>,
}

/// Where a paginated list's pages carry their tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageFields {
    /// The query parameter that carries a token.
    pub token_param: String,
    /// The page fields that hold the next and previous tokens.
    pub next: String,
    pub prev: String,
    /// The rules its pages are judged under.
    pub rules: ListRules,
}

/// How an operation authenticates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scheme", deny_unknown_fields)]
pub enum Security {
    /// `Authorization: Bearer <token>` (finance area).
    #[serde(rename = "bearer")]
    Bearer,
    /// OAuth 2.0 client credentials (embedded banking area). `scopes: None`: the spec shows none.
    #[serde(rename = "oauth2-client-credentials")]
    OAuth2ClientCredentials { scopes: Option<Vec<String>> },
}

/// The ten operations of the spec, by their ids in `operations.json`.
///
/// A type rather than strings, so that a case cannot name an operation that does not exist;
/// everything else about an operation (method, path template, area, headers, security,
/// statuses) is read from `operations.json` through [`OperationId::operation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperationId {
    CreateReceivable,
    CreateVatId,
    GetVatId,
    UpdateComment,
    CreateMailboxDomain,
    DeleteTag,
    DeleteBankAccount,
    ListEvents,
    CreateVelocityControl,
    ListTransactions,
}

impl OperationId {
    /// All ten, in the order of `operations.json`.
    pub const ALL: [OperationId; 10] = [
        OperationId::CreateReceivable,
        OperationId::CreateVatId,
        OperationId::GetVatId,
        OperationId::UpdateComment,
        OperationId::CreateMailboxDomain,
        OperationId::DeleteTag,
        OperationId::DeleteBankAccount,
        OperationId::ListEvents,
        OperationId::CreateVelocityControl,
        OperationId::ListTransactions,
    ];

    /// The id as `operations.json` and the reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            OperationId::CreateReceivable => "create-receivable",
            OperationId::CreateVatId => "create-vat-id",
            OperationId::GetVatId => "get-vat-id",
            OperationId::UpdateComment => "update-comment",
            OperationId::CreateMailboxDomain => "create-mailbox-domain",
            OperationId::DeleteTag => "delete-tag",
            OperationId::DeleteBankAccount => "delete-bank-account",
            OperationId::ListEvents => "list-events",
            OperationId::CreateVelocityControl => "create-velocity-control",
            OperationId::ListTransactions => "list-transactions",
        }
    }

    /// The operation's description in the embedded `operations.json`.
    pub fn operation(self) -> &'static Operation {
        operations()
            .iter()
            .find(|op| op.id == self)
            .expect("operations.json describes all ten operations (checked by its tests)")
    }

    /// The operation's area.
    pub fn area(self) -> Area {
        self.operation().area
    }

    /// The paginated lists, in the order of `operations.json`: the operations whose pages carry
    /// tokens (`x-page`).
    pub fn lists() -> impl Iterator<Item = OperationId> {
        OperationId::ALL
            .into_iter()
            .filter(|op| op.operation().page.is_some())
    }

    /// The operations that take a body, in the order of `operations.json`.
    pub fn with_body() -> impl Iterator<Item = OperationId> {
        OperationId::ALL
            .into_iter()
            .filter(|op| op.operation().request_body.is_some())
    }

    /// The header parameter that names the organization a request acts for, if it takes one.
    pub fn organization(self) -> Option<&'static Param> {
        self.operation()
            .parameters
            .iter()
            .find(|p| p.is_organization())
    }

    /// How many parameters the path template has.
    pub fn path_parameters(self) -> usize {
        self.operation().path.matches('{').count()
    }

    /// The operation whose method is `method` and whose path template `path` fits, where one
    /// does.
    pub fn find(method: &str, path: &str) -> Option<OperationId> {
        OperationId::ALL.into_iter().find(|id| {
            let op = id.operation();
            op.method.as_str().eq_ignore_ascii_case(method) && path_fits(&op.path, path)
        })
    }

    /// The path with its template's parameters filled in order, e.g.
    /// `GetVatId.path(&[counterpart, id])`. Values are inserted as given: a case that tests
    /// odd path values passes them already encoded.
    pub fn path(self, values: &[&str]) -> String {
        fill_template(&self.operation().path, values)
    }
}

/// Whether `path` fits `template`: the same segments, a `{parameter}` standing for any
/// non-empty one.
pub fn path_fits(template: &str, path: &str) -> bool {
    let mut want = template.split('/');
    let mut have = path.split('/');
    loop {
        match (want.next(), have.next()) {
            (None, None) => return true,
            (Some(w), Some(h)) if w.starts_with('{') && w.ends_with('}') => {
                if h.is_empty() {
                    return false;
                }
            }
            (Some(w), Some(h)) if w == h => {}
            _ => return false,
        }
    }
}

impl std::fmt::Display for OperationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A path template with its `{name}` segments replaced by `values`, in order.
///
/// Panics when the count differs: that is a defect of the case, which every test run catches.
fn fill_template(template: &str, values: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 40);
    let mut values = values.iter();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .map(|i| open + i)
            .expect("operations.json path templates close every {");
        let value = values.next().unwrap_or_else(|| {
            panic!("{template}: a value for {} is missing", &rest[open..=close])
        });
        out.push_str(value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    assert!(
        values.next().is_none(),
        "{template}: more values than parameters"
    );
    out
}

/// One operation of the spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    pub id: OperationId,
    pub area: Area,
    pub method: Method,
    /// Path template, e.g. `/finops/v1/comments/{comment_id}`.
    pub path: String,
    pub summary: String,
    pub parameters: Vec<Param>,
    /// Schema stem of the request body, if the operation takes one.
    pub request_body: Option<String>,
    /// The fields of a valid body that name fixtures of the profile.
    #[serde(
        rename = "x-body-fixtures",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub body_fixtures: Vec<BodyFixture>,
    /// The success statuses the spec states; empty: not shown, any 2xx is acceptable.
    pub success_statuses: Vec<u16>,
    /// Schema stem of the success body; `None`: not shown.
    pub success_schema: Option<String>,
    /// The rule a success body breaks where its schema names none.
    #[serde(rename = "x-success-rule")]
    pub success_rule: String,
    /// The token fields of a paginated list's pages.
    #[serde(rename = "x-page", default, skip_serializing_if = "Option::is_none")]
    pub page: Option<PageFields>,
    /// Schema stem of error bodies (every status but a finance 422).
    pub error_schema: String,
    /// Schema stem of a 422 body (finance area only).
    pub validation_error_schema: Option<String>,
    /// The full status set the spec declares, where it declares one (create receivable).
    pub declared_statuses: Option<Vec<u16>>,
    /// The statuses the spec states the operation answers, each a status (`201`) or a class
    /// (`2xx`: a success whose status is not shown). Status coverage compares them with the
    /// statuses a run saw.
    pub stated_statuses: Vec<String>,
    pub security: Security,
}

/// Whether `status` is what a stated status names: itself, or a member of its class (`2xx`).
pub fn status_matches(stated: &str, status: u16) -> bool {
    match stated.strip_suffix("xx") {
        Some(class) => class.parse::<u16>().is_ok_and(|c| status / 100 == c),
        None => stated.parse::<u16>().is_ok_and(|s| s == status),
    }
}

impl Operation {
    /// Whether `status` is a success the spec allows for this operation.
    pub fn accepts_success(&self, status: u16) -> bool {
        if self.success_statuses.is_empty() {
            (200..300).contains(&status)
        } else {
            self.success_statuses.contains(&status)
        }
    }

    /// The schema stem an error body with this status must match.
    pub fn error_schema_for(&self, status: u16) -> &str {
        match (&self.validation_error_schema, status) {
            (Some(stem), 422) => stem,
            _ => &self.error_schema,
        }
    }

    /// Every schema stem the operation names.
    pub fn schema_stems(&self) -> impl Iterator<Item = &str> {
        [
            self.request_body.as_deref(),
            self.success_schema.as_deref(),
            Some(self.error_schema.as_str()),
            self.validation_error_schema.as_deref(),
        ]
        .into_iter()
        .flatten()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OperationsFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    pub(crate) operations: Vec<Operation>,
}

/// Parses an operations file.
pub(crate) fn parse_operations(text: &str) -> Result<Vec<Operation>, serde_json::Error> {
    serde_json::from_str::<OperationsFile>(text).map(|file| file.operations)
}

/// The ten operations, parsed once from the embedded `operations.json`.
pub fn operations() -> &'static [Operation] {
    static OPERATIONS: OnceLock<Vec<Operation>> = OnceLock::new();
    OPERATIONS.get_or_init(|| {
        parse_operations(OPERATIONS_JSON)
            .expect("the embedded operations.json is checked by `covenant schemas check` and tests")
    })
}

/// The operation with this id, spelt as in `operations.json`.
pub fn operation(id: &str) -> Option<&'static Operation> {
    operations().iter().find(|op| op.id.as_str() == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_id_is_described_once_in_file_order() {
        let ids: Vec<OperationId> = operations().iter().map(|op| op.id).collect();
        assert_eq!(ids, OperationId::ALL);
        for id in OperationId::ALL {
            let json = serde_json::to_value(id).expect("an id serialises");
            assert_eq!(json, id.as_str());
            assert_eq!(id.operation().id, id);
        }
    }

    #[test]
    fn paths_fill_their_templates_in_order() {
        assert_eq!(
            OperationId::GetVatId.path(&["cp", "v"]),
            "/finops/v1/counterparts/cp/vat-ids/v"
        );
        assert_eq!(OperationId::ListEvents.path(&[]), "/finops/v1/events");
        assert_eq!(
            OperationId::ListTransactions.path(&["a"]),
            "/embedded-banking/v1/bank-accounts/a/transactions"
        );
    }

    #[test]
    #[should_panic(expected = "is missing")]
    fn a_path_with_too_few_values_is_a_defect() {
        OperationId::GetVatId.path(&["cp"]);
    }
}
