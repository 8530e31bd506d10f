//! Valid request bodies built from the profile's fixtures: the starting point of every scenario
//! and of every hand-written invalid body.

use super::run_context::RunCx;
use crate::schema::OperationId;
use serde_json::{json, Value};

/// Builds bodies for one run.
pub struct Bodies<'a> {
    run: &'a RunCx,
}

impl<'a> Bodies<'a> {
    pub fn new(run: &'a RunCx) -> Bodies<'a> {
        Bodies { run }
    }

    /// The profile's value for `field` of a valid body of `op`, where the operations table
    /// says the field names a fixture (`x-body-fixtures`); empty where the profile gives none.
    pub fn fixture_of(&self, op: OperationId, field: &str) -> String {
        let fields = &op.operation().body_fixtures;
        let key = fields.iter().find(|f| f.field == field);
        let key = key.expect("the field names a fixture in operations.json");
        self.run
            .fixture(&key.fixture)
            .unwrap_or_default()
            .to_owned()
    }

    pub fn currency(&self) -> String {
        self.run
            .profile
            .currency
            .clone()
            .unwrap_or_else(|| "EUR".to_owned())
    }

    /// One line item in the spec's sample shape.
    pub fn line_item(&self) -> Value {
        json!({
            "product": {
                "name": "Covenant conformance check",
                "price": { "value": 1250, "currency": self.currency() },
                "measure_unit": { "name": "unit" }
            },
            "quantity": 2,
            "vat_rate_id": self.fixture_of(OperationId::CreateReceivable, "vat_rate_id"),
        })
    }

    /// A minimal quote body: the required fields only.
    pub fn quote(&self) -> Value {
        json!({
            "type": "quote",
            "currency": self.currency(),
            "line_items": [self.line_item()],
            "counterpart_id": self.fixture_of(OperationId::CreateReceivable, "counterpart_id"),
        })
    }

    /// A minimal invoice body.
    pub fn invoice(&self) -> Value {
        let mut body = self.quote();
        body["type"] = json!("invoice");
        body
    }

    pub fn based_on(&self, kind: &str, source: &str) -> Value {
        json!({ "type": kind, "based_on": source })
    }

    /// A VAT ID create body.
    pub fn vat_id(&self, value: &str) -> Value {
        json!({ "value": value, "country": "DE", "type": "eu_vat" })
    }

    /// A velocity control body, organization-scoped, with a run-unique id.
    pub fn velocity(&self, suffix: &str) -> Value {
        json!({
            "id": self.unique(suffix),
            "amountLimit": 50000,
            "currencyCode": self.currency(),
            "name": format!("covenant {suffix}"),
            "velocityWindow": "DAY",
            "usageLimit": 10,
        })
    }

    /// An id unique to this run and this use.
    pub fn unique(&self, suffix: &str) -> String {
        self.run.unique(suffix)
    }

    /// A mailbox domain unique to this run.
    pub fn domain(&self, suffix: &str) -> String {
        format!("{}.example.com", self.run.unique(suffix))
    }
}
