//! The requests of the ten operations, built from the table of what each needs
//! (`schemas/operations.json`): the profile fixture that fills each path parameter and header
//! (`x-fixture`), and the Authorization its security scheme asks for. This is the one place that
//! chooses a request's fixtures and headers; a case overrides the token, the organization or the
//! path values through [`Call`], never by naming the headers itself. A request carries its
//! operation ([`Outgoing`]) to the one `send`, so that a case names the operation once. A case
//! for every operation is a loop over [`OperationId::ALL`] with `CaseCx::call` and
//! [`Fixture::of_operation`](crate::profile::Fixture::of_operation).

use super::run_context::RunCx;
use crate::client::Request;
use crate::schema::{self, OperationId, ParamLocation};
use reqwest::Method;
use serde_json::Value;
use std::sync::Arc;

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
    run: RunRef<'r>,
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

/// The run a request is built for: shared, so that a case can send the request it builds
/// without a borrow of itself, or borrowed (the preflight).
#[derive(Clone)]
enum RunRef<'r> {
    Shared(Arc<RunCx>),
    Borrowed(&'r RunCx),
}

impl std::ops::Deref for RunRef<'_> {
    type Target = RunCx;
    fn deref(&self) -> &RunCx {
        match self {
            RunRef::Shared(run) => run,
            RunRef::Borrowed(run) => run,
        }
    }
}

impl Call<'static> {
    /// A request of `op` of the run `run`, with the profile's fixtures and credentials.
    pub fn new(run: Arc<RunCx>, op: OperationId) -> Call<'static> {
        Call::of(RunRef::Shared(run), op)
    }
}

impl<'r> Call<'r> {
    /// [`Call::new`] on a borrowed run.
    pub fn borrowed(run: &'r RunCx, op: OperationId) -> Call<'r> {
        Call::of(RunRef::Borrowed(run), op)
    }

    fn of(run: RunRef<'r>, op: OperationId) -> Call<'r> {
        Call {
            run,
            op,
            ids: Vec::new(),
            path: None,
            query: None,
            token: Given::Profile,
            organization: Given::Profile,
        }
    }

    /// The operation it is a request of.
    pub fn operation(&self) -> OperationId {
        self.op
    }

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
        let run = &*self.run;
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
        let area_org = operation.area.organization();
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

/// A request of one operation, ready to send: what `CaseCx::send` takes, so that the operation
/// a request is judged under is the one it was built for.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub operation: OperationId,
    pub request: Request,
}

impl Outgoing {
    /// With a JSON body.
    pub fn json(mut self, body: Value) -> Outgoing {
        self.request = self.request.json(body);
        self
    }

    /// With a body of raw bytes.
    pub fn raw(mut self, bytes: impl Into<Vec<u8>>, content_type: Option<&str>) -> Outgoing {
        self.request = self.request.raw(bytes, content_type);
        self
    }

    /// With one more header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Outgoing {
        self.request = self.request.header(name, value);
        self
    }

    /// With this header in place of any of the same name.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Outgoing {
        self.request = self.request.with_header(name, value);
        self
    }
}

impl From<Call<'_>> for Outgoing {
    fn from(call: Call<'_>) -> Outgoing {
        let operation = call.op;
        Outgoing {
            operation,
            request: call.request(),
        }
    }
}

impl Call<'_> {
    /// The request, ready to send with a JSON body.
    pub fn json(self, body: Value) -> Outgoing {
        Outgoing::from(self).json(body)
    }

    /// The request, ready to send with a body of raw bytes.
    pub fn raw(self, bytes: impl Into<Vec<u8>>, content_type: Option<&str>) -> Outgoing {
        Outgoing::from(self).raw(bytes, content_type)
    }

    /// The request, ready to send with this header in place of any of the same name.
    pub fn with_header(self, name: &str, value: impl Into<String>) -> Outgoing {
        Outgoing::from(self).with_header(name, value)
    }

    /// The request of its operation as `request` has it (a request the case changed after
    /// building it).
    pub fn as_built(self, request: Request) -> Outgoing {
        Outgoing {
            operation: self.op,
            request,
        }
    }
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
    use crate::profile::{Fixture, Profile};
    use crate::schema::OperationId;

    #[test]
    fn every_fixture_of_the_table_is_a_fixture_of_the_profile() {
        let profile = Profile::parse(
            "[finops]\norganization_id = \"o\"\ncounterpart_id = \"c\"\ncomment_ids = [\"m\"]\n\
             deletable_tag_ids = [\"t\"]\nentity_user_id = \"e\"\nvat_rate_id = \"v\"\n\
             quote_id = \"q\"\n\
             [[finops.deletable_bank_accounts]]\ncounterpart_id = \"c\"\nbank_account_id = \"b\"\n\
             [banking]\norg_header = \"x-org\"\norganization_id = \"b\"\n\
             bank_account_id = \"a\"\ncard_id = \"k\"\n",
            std::path::Path::new("p.toml"),
        )
        .expect("a valid profile");
        for op in OperationId::ALL {
            let operation = op.operation();
            let params = operation.parameters.iter();
            let keys = params.flat_map(|p| [p.fixture.as_deref(), p.name_from_profile.as_deref()]);
            let body = operation
                .body_fixtures
                .iter()
                .map(|f| Some(f.fixture.as_str()));
            for key in keys.chain(body).flatten() {
                let fixture = Fixture::of_key(key);
                let given = fixture.and_then(|f| f.value(&profile));
                assert!(given.is_some(), "{op}: fixture {key} is read from nowhere");
            }
        }
    }

    #[test]
    fn needs_follow_the_table() {
        assert_eq!(
            Fixture::of_operation(OperationId::ListEvents),
            [Fixture::FinopsToken, Fixture::FinopsOrg]
        );
        assert_eq!(
            Fixture::of_operation(OperationId::ListTransactions),
            [Fixture::BankingToken, Fixture::BankAccount]
        );
        assert_eq!(
            Fixture::of_operation(OperationId::CreateMailboxDomain),
            [Fixture::FinopsToken]
        );
        assert_eq!(
            Fixture::of_operation(OperationId::DeleteBankAccount),
            [
                Fixture::FinopsToken,
                Fixture::FinopsOrg,
                Fixture::DeletableBankAccount
            ]
        );
        assert_eq!(
            Fixture::of_operation(OperationId::CreateReceivable),
            [
                Fixture::FinopsToken,
                Fixture::FinopsOrg,
                Fixture::Counterpart,
                Fixture::VatRate
            ]
        );
    }
}
