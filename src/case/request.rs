//! The requests of the ten operations, built from the table of what each needs
//! (`schemas/operations.json`): the profile fixture that fills each path parameter and header
//! (`x-fixture`), and the Authorization its security scheme asks for. This is the one place that
//! chooses a request's fixtures and headers; a case overrides the token, the organization or the
//! path values through [`Call`], never by naming the headers itself. A case for every operation
//! is a loop over [`OperationId::ALL`] with [`RunCx::call`] and [`Need::of_operation`].

use super::{CaseCx, Need, RunCx};
use crate::client::Request;
use crate::profile::Profile;
use crate::schema::{self, OperationId, ParamLocation, Security};
use reqwest::Method;

/// A credential of a request: the profile's, none at all, or one the case gives.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Given {
    #[default]
    Profile,
    Omitted,
    Value(String),
}

impl Given {
    /// A value the case gives.
    pub fn value(value: impl Into<String>) -> Given {
        Given::Value(value.into())
    }
}

/// A request of one operation being built: path values from the profile's fixtures, headers and
/// Authorization from the table, each of which a case may override.
#[derive(Clone)]
pub struct Call<'r> {
    run: &'r RunCx,
    op: OperationId,
    /// The values of path parameters no fixture fills (ids the case made, deletable fixtures
    /// the ledger handed out), in order.
    ids: Vec<String>,
    /// Every path value, in place of the fixtures.
    path: Option<Vec<String>>,
    /// A query string, appended to the path.
    query: Option<String>,
    token: Given,
    organization: Given,
}

impl<'r> Call<'r> {
    /// The values of the path parameters no fixture fills, in order (an id the case made).
    pub fn ids(mut self, ids: &[&str]) -> Self {
        self.ids = ids.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// Every path value, in place of the fixtures (ids that name nothing, another account).
    pub fn path(mut self, values: &[&str]) -> Self {
        self.path = Some(values.iter().map(|s| (*s).to_owned()).collect());
        self
    }

    /// A query string (`limit=1`), appended to the path as it is.
    pub fn query(mut self, query: &str) -> Self {
        self.query = Some(query.to_owned());
        self
    }

    /// The bearer token the request carries.
    pub fn token(mut self, token: Given) -> Self {
        self.token = token;
        self
    }

    /// The organization the request acts for, in the operation's organization header; one the
    /// case gives goes in the area's organization header where the operation takes none.
    pub fn organization(mut self, organization: Given) -> Self {
        self.organization = organization;
        self
    }

    /// The request with its method and path, and no header at all.
    pub fn bare(self) -> Request {
        let mut request = self.request();
        request.headers.clear();
        request
    }

    /// The request: method, path, and the headers the operation takes, in the order of the
    /// table, Authorization before the organization header.
    pub fn request(self) -> Request {
        let run = self.run;
        let operation = self.op.operation();
        let values = match &self.path {
            Some(values) => values.clone(),
            None => run.path_values(self.op, &self.ids),
        };
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        let mut path = self.op.path(&values);
        if let Some(query) = &self.query {
            path = format!("{path}?{query}");
        }
        let mut request = Request::new(http_method(operation.method), path);
        let token = match &self.token {
            Given::Profile => run.token(&operation.security),
            Given::Omitted => None,
            Given::Value(token) => Some(token.as_str()),
        };
        let mut bearer = token.map(|t| format!("Bearer {t}"));
        let area_org = OperationId::ALL
            .into_iter()
            .filter(|op| op.area() == operation.area)
            .flat_map(|op| &op.operation().parameters)
            .find(|p| p.is_organization());
        let own_org = operation.parameters.iter().any(|p| p.is_organization());
        let given_org = match (&self.organization, own_org) {
            (Given::Value(_), false) => area_org,
            _ => None,
        };
        let headers = operation
            .parameters
            .iter()
            .filter(|p| p.location == ParamLocation::Header)
            .chain(given_org);
        for param in headers {
            let value = if param.is_organization() {
                if let Some(bearer) = bearer.take() {
                    request = request.header("authorization", bearer);
                }
                match &self.organization {
                    Given::Profile => param.fixture.as_deref().and_then(|k| run.fixture(k)),
                    Given::Omitted => None,
                    Given::Value(org) => Some(org.as_str()),
                }
            } else {
                param.fixture.as_deref().and_then(|k| run.fixture(k))
            };
            let name = param
                .name
                .as_deref()
                .or_else(|| run.fixture(param.name_from_profile.as_deref()?));
            if let (Some(name), Some(value)) = (name, value) {
                request = request.header(name, value);
            }
        }
        if let Some(bearer) = bearer {
            request = request.header("authorization", bearer);
        }
        request
    }
}

impl RunCx {
    /// A request of `op` built from the table: see [`Call`].
    pub fn call(&self, op: OperationId) -> Call<'_> {
        Call {
            run: self,
            op,
            ids: Vec::new(),
            path: None,
            query: None,
            token: Given::Profile,
            organization: Given::Profile,
        }
    }

    /// The request of `op` with the profile's credentials and `values` as its path.
    pub fn request(&self, op: OperationId, values: &[&str]) -> Request {
        self.call(op).path(values).request()
    }

    /// The values of `op`'s path parameters: the profile's fixtures where the table names one
    /// (empty where the profile gives none: the case needs it, see [`Need::of_operation`]), and
    /// `ids` in order for the others (ids the case made, fixtures the ledger handed out).
    pub fn path_values(&self, op: OperationId, ids: &[String]) -> Vec<String> {
        let mut ids = ids.iter();
        let path = op.operation().parameters.iter();
        path.filter(|p| p.location == ParamLocation::Path)
            .map(|param| {
                let fixture = param.fixture.as_deref().filter(|k| !consumable(k));
                match fixture {
                    Some(key) => self.fixture(key).unwrap_or_default().to_owned(),
                    None => ids.next().cloned().unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The profile value a fixture key of the table names (see [`fixture`]).
    pub fn fixture(&self, key: &str) -> Option<&str> {
        fixture(&self.profile, key)
    }

    /// The profile's token for an operation with this security scheme.
    fn token(&self, security: &Security) -> Option<&str> {
        match security {
            Security::Bearer => self.finops_token(),
            Security::OAuth2ClientCredentials { .. } => {
                self.banking_token.as_ref().map(|t| t.expose())
            }
        }
    }
}

impl CaseCx {
    /// The request of `op` with `values` as its path (see [`RunCx::request`]).
    pub fn request(&self, op: OperationId, values: &[&str]) -> Request {
        self.run.request(op, values)
    }

    /// A request of `op` built from the table (see [`Call`]).
    pub fn call(&self, op: OperationId) -> Call<'_> {
        self.run.call(op)
    }
}

impl Need {
    /// What a request of `op` needs from the profile, as the table says: its token, the
    /// organization where the operation requires one, and the fixtures of its path.
    pub fn of_operation(op: OperationId) -> Vec<Need> {
        let operation = op.operation();
        let token = match operation.security {
            Security::Bearer => Need::FinopsToken,
            Security::OAuth2ClientCredentials { .. } => Need::BankingToken,
        };
        let mut needs = vec![token];
        let params = &operation.parameters;
        let organization = params.iter().filter(|p| p.required && p.is_organization());
        let path = params.iter().filter(|p| p.location == ParamLocation::Path);
        let fixtures = organization
            .chain(path)
            .filter_map(|p| Need::of_key(p.fixture.as_deref()?));
        for need in fixtures {
            if !needs.contains(&need) {
                needs.push(need);
            }
        }
        needs
    }
}

/// The profile value a fixture key of the table names (the first of a list): the small Rust
/// half of the table. `None` when the profile gives none, and for the deletable lists, which the
/// fixture ledger hands out.
fn fixture<'p>(profile: &'p Profile, key: &str) -> Option<&'p str> {
    let f = profile.finops.as_ref();
    let b = profile.banking.as_ref();
    match key {
        "finops.version" => Some(profile.finops_version()),
        "finops.organization_id" => f?.organization_id.as_deref(),
        "finops.other_organization_id" => f?.other_organization_id.as_deref(),
        "finops.counterpart_id" => f?.counterpart_id.as_deref(),
        "finops.comment_ids" => f?.comment_ids.first().map(String::as_str),
        "banking.org_header" => b?.org_header.as_deref(),
        "banking.organization_id" => b?.organization_id.as_deref(),
        "banking.bank_account_id" => b?.bank_account_id.as_deref(),
        _ => None,
    }
}

/// Whether a fixture key names a list the fixture ledger hands out, one fixture per run.
fn consumable(key: &str) -> bool {
    Need::of_key(key).is_some_and(|need| need.consumable().is_some())
}

/// The HTTP method of an operation of the contract.
fn http_method(method: schema::Method) -> Method {
    match method {
        schema::Method::Get => Method::GET,
        schema::Method::Post => Method::POST,
        schema::Method::Patch => Method::PATCH,
        schema::Method::Delete => Method::DELETE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_of_the_table_is_read_from_the_profile_or_the_ledger() {
        let profile = Profile::parse(
            "[finops]\norganization_id = \"o\"\ncounterpart_id = \"c\"\ncomment_ids = [\"m\"]\n\
             [banking]\norg_header = \"x-org\"\norganization_id = \"b\"\n\
             bank_account_id = \"a\"\n",
            std::path::Path::new("p.toml"),
        )
        .expect("a valid profile");
        for op in OperationId::ALL {
            for param in &op.operation().parameters {
                let keys = [param.fixture.as_deref(), param.name_from_profile.as_deref()];
                for key in keys.into_iter().flatten() {
                    let known = consumable(key) || fixture(&profile, key).is_some();
                    assert!(known, "{op}: fixture {key} is read from nowhere");
                }
            }
        }
    }

    #[test]
    fn needs_follow_the_table() {
        assert_eq!(
            Need::of_operation(OperationId::ListEvents),
            [Need::FinopsToken, Need::FinopsOrg]
        );
        assert_eq!(
            Need::of_operation(OperationId::ListTransactions),
            [Need::BankingToken, Need::BankAccount]
        );
        assert_eq!(
            Need::of_operation(OperationId::CreateMailboxDomain),
            [Need::FinopsToken]
        );
        assert_eq!(
            Need::of_operation(OperationId::DeleteBankAccount),
            [
                Need::FinopsToken,
                Need::FinopsOrg,
                Need::DeletableBankAccount
            ]
        );
    }
}
