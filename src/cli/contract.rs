//! The commands that print the contract as covenant holds it: its schemas checked, the case
//! file's schema, the rules, the request constraints, the trace of the spec and the OpenAPI
//! document. They need no target.

use super::flags::TraceFormat;
use covenant::catalogue::Catalogue;
use covenant::exit::{self, Fatal};
use covenant::schema::{self, OPERATIONS_JSON, SCHEMA_FILES};
use covenant::terminal::out;

/// `covenant schemas check`: the text is gathered first and printed through `out`, so that a
/// closed stdout changes nothing of the verdict.
pub fn schemas_check_command() -> Result<u8, Fatal> {
    let mut text = Vec::new();
    let code = schema::run_check(
        SCHEMA_FILES,
        OPERATIONS_JSON,
        Catalogue::embedded(),
        &mut text,
    )
    .expect("writing to a Vec never fails");
    out(&String::from_utf8_lossy(&text));
    Ok(code)
}

/// `covenant schema case`: the JSON Schema of a case file.
pub fn schema_case_command() -> Result<u8, Fatal> {
    out(covenant::user::CASE_SCHEMA.trim_end());
    Ok(exit::SUCCESS)
}

/// `covenant list rules`: the catalogue, then counts by level and observability.
pub fn list_rules_command() -> Result<u8, Fatal> {
    out(&covenant::catalogue::render_list(Catalogue::embedded()));
    Ok(exit::SUCCESS)
}

/// `covenant list constraints`: one line per constraint, bodies then parameters, then a count.
pub fn list_constraints_command() -> Result<u8, Fatal> {
    let inventory = covenant::generate::Inventory::embedded();
    let mut text = String::new();
    for c in inventory.constraints() {
        let broken = c.unbreakable.unwrap_or("broken alone");
        text.push_str(&format!(
            "{}  {}  [{}]  held: {}; {broken}\n",
            c.operation,
            c.id,
            c.rule,
            c.edge()
        ));
    }
    let params = inventory.constraints().iter().filter(|c| c.param.is_some());
    text.push_str(&format!(
        "{} constraints: {} of {} body shapes, {} of {} parameters and headers\n",
        inventory.len(),
        inventory.len() - params.clone().count(),
        inventory.stems().len(),
        params.count(),
        inventory.parameters().len()
    ));
    out(&text);
    Ok(exit::SUCCESS)
}

/// `covenant trace [ID] [--format json]`: the trace, a rule's statements or one entry; an id
/// that is neither is a usage error naming the closest ids.
pub fn trace_command(id: Option<&str>, format: TraceFormat) -> Result<u8, Fatal> {
    use covenant::report::trace::{self, ConstraintRef};
    let (traced, catalogue) = (covenant::trace::Trace::embedded(), Catalogue::embedded());
    let inventory = covenant::generate::Inventory::embedded();
    let constraints: Vec<ConstraintRef<'_>> = inventory
        .constraints()
        .iter()
        .map(|c| ConstraintRef {
            id: &c.id,
            rule: &c.rule,
        })
        .collect();
    let text = match (id, format) {
        (None, TraceFormat::Text) => trace::text(traced, &constraints),
        (None, TraceFormat::Json) => pretty(&trace::json(traced, &constraints))?,
        (Some(id), format) => {
            let found = match format {
                TraceFormat::Text => trace::one(traced, catalogue, &constraints, id),
                TraceFormat::Json => trace::one_json(traced, catalogue, &constraints, id)
                    .map(|v| pretty(&v))
                    .transpose()?,
            };
            found.ok_or_else(|| {
                let near = trace::suggestions(traced, catalogue, id);
                let hint = match near.as_slice() {
                    [] => String::new(),
                    near => format!(" (did you mean {}?)", near.join(", ")),
                };
                Fatal::Usage(format!(
                    "covenant trace {id}: no rule and no trace entry has this id{hint}; \
                     `covenant list rules` lists the rules, `covenant trace` the entries"
                ))
            })?
        }
    };
    out(&text);
    Ok(exit::SUCCESS)
}

/// Pretty JSON and its newline.
fn pretty(value: &serde_json::Value) -> Result<String, Fatal> {
    serde_json::to_string_pretty(value)
        .map(|t| format!("{t}\n"))
        .map_err(|e| Fatal::Startup(format!("cannot serialise the trace: {e}")))
}

/// `covenant openapi [--org-header NAME]`.
pub fn openapi_command(org_header: Option<&str>) -> Result<u8, Fatal> {
    let document = match org_header {
        Some(name) => schema::openapi_document_with_org_header(name),
        None => schema::openapi_document(),
    };
    let text = serde_json::to_string_pretty(&document)
        .map_err(|e| Fatal::Startup(format!("cannot serialise the OpenAPI document: {e}")))?;
    out(&format!("{text}\n"));
    Ok(exit::SUCCESS)
}
