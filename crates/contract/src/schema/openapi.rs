//! `covenant openapi`: an OpenAPI 3.1 document of the ten operations, built from
//! `operations.json` and the schema files. Where the spec does not show something (the banking
//! organization header's name, the token endpoint, most success statuses) the document says so
//! in a description instead of inventing a fact.

use super::operations::{operations, Area, Operation, Param, Security};
use super::registry::Registry;
use serde_json::{json, Map, Value};

/// The header name used for the banking organization header, whose real name the spec does not
/// show (a profile names it: `banking.org_header`).
pub const BANKING_ORG_HEADER_PLACEHOLDER: &str = "x-banking-organization-id";

const BEARER: &str = "financeBearer";
const OAUTH2: &str = "bankingOAuth2";

/// The OpenAPI 3.1 document of the embedded schemas and operations.
pub fn openapi_document() -> Value {
    let registry = Registry::embedded();
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Finance Operations and Embedded Banking Partner API",
            "version": "v1",
            "description": "The ten operations covered by covenant, generated from schemas/ by `covenant openapi`. \
                Only what the specification states is constrained; what it does not show is left open.",
        },
        "paths": paths(),
        "components": {
            "schemas": component_schemas(registry),
            "securitySchemes": security_schemes(),
        },
    })
}

/// The document with the banking organization header named `name` (a target's
/// `banking.org_header`) instead of the placeholder.
pub fn openapi_document_with_org_header(name: &str) -> Value {
    let mut document = openapi_document();
    let operations = document["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut());
    for operation in
        operations.flat_map(|o| o.as_object_mut().into_iter().flat_map(|o| o.values_mut()))
    {
        for param in operation
            .get_mut("parameters")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if param["name"] == BANKING_ORG_HEADER_PLACEHOLDER {
                param["name"] = json!(name);
                param["description"] = json!(
                    "Optional uuid naming the organization to act for; a malformed value gives 400. \
                     The spec does not show its name: this one comes from the target's profile."
                );
            }
        }
    }
    document
}

fn component_schemas(registry: &Registry) -> Map<String, Value> {
    registry
        .names()
        .filter_map(|stem| {
            let mut schema = registry.schema(stem)?.clone();
            if let Value::Object(map) = &mut schema {
                map.remove("$schema");
                map.remove("$id");
                map.remove("x-negative-examples");
            }
            rewrite_refs(stem, &mut schema);
            Some((stem.to_string(), schema))
        })
        .collect()
}

/// Rewrites `other.json#/x` to `#/components/schemas/other/x` and `#/x` (within `stem`) to
/// `#/components/schemas/<stem>/x`.
fn rewrite_refs(stem: &str, node: &mut Value) {
    match node {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(reference) if key == "$ref" => {
                        *reference = component_ref(stem, reference);
                    }
                    _ => rewrite_refs(stem, value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite_refs(stem, item)),
        _ => {}
    }
}

fn component_ref(stem: &str, reference: &str) -> String {
    let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let target = if file.is_empty() {
        stem
    } else {
        file.trim_end_matches(".json")
    };
    format!("#/components/schemas/{target}{fragment}")
}

fn schema_ref(stem: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{stem}") })
}

fn security_schemes() -> Value {
    json!({
        BEARER: {
            "type": "http",
            "scheme": "bearer",
            "description": "Finance area: Authorization: Bearer <ACCESS_TOKEN>; a missing or invalid token gives 401.",
        },
        OAUTH2: {
            "type": "oauth2",
            "description": "Embedded banking area: application OAuth 2.0 tokens from the client credentials flow. \
                The token endpoint is not shown by the specification: tokenUrl is a placeholder.",
            "flows": {
                "clientCredentials": {
                    "tokenUrl": "https://token-endpoint-not-shown.invalid/oauth2/token",
                    "scopes": {
                        "authorization_control:write:org": "Create velocity controls.",
                    },
                },
            },
        },
    })
}

fn paths() -> Map<String, Value> {
    let mut paths = Map::new();
    for operation in operations() {
        let item = paths
            .entry(operation.path.clone())
            .or_insert_with(|| json!({}));
        if let Value::Object(item) = item {
            item.insert(
                operation.method.as_str().to_lowercase(),
                openapi_operation(operation),
            );
        }
    }
    paths
}

fn openapi_operation(operation: &Operation) -> Value {
    let mut out = json!({
        "operationId": operation.id,
        "summary": operation.summary,
        "tags": [match operation.area { Area::Finance => "finance", Area::Banking => "banking" }],
        "parameters": operation.parameters.iter().map(openapi_parameter).collect::<Vec<_>>(),
        "responses": responses(operation),
        "security": [security_requirement(&operation.security)],
    });
    if let (Some(stem), Value::Object(map)) = (&operation.request_body, &mut out) {
        map.insert(
            "requestBody".into(),
            json!({ "required": true, "content": { "application/json": { "schema": schema_ref(stem) } } }),
        );
    }
    out
}

fn openapi_parameter(param: &Param) -> Value {
    let (name, description) = match &param.name {
        Some(name) => (name.clone(), param.description.clone().unwrap_or_default()),
        None => (
            BANKING_ORG_HEADER_PLACEHOLDER.to_string(),
            format!(
                "{} Named {BANKING_ORG_HEADER_PLACEHOLDER} here only as a placeholder.",
                param.description.clone().unwrap_or_default()
            ),
        ),
    };
    json!({
        "name": name,
        "in": param.location,
        "required": param.required,
        "description": description,
        "schema": param.schema,
    })
}

fn security_requirement(security: &Security) -> Value {
    match security {
        Security::Bearer => json!({ BEARER: [] }),
        Security::OAuth2ClientCredentials { scopes } => {
            json!({ OAUTH2: scopes.clone().unwrap_or_default() })
        }
    }
}

fn responses(operation: &Operation) -> Map<String, Value> {
    let mut responses = Map::new();
    let success = success_response(operation);
    if operation.success_statuses.is_empty() {
        responses.insert("2XX".into(), success);
    } else {
        for status in &operation.success_statuses {
            responses.insert(status.to_string(), success.clone());
        }
    }
    let error = |stem: &str, text: &str| json!({ "description": text, "content": { "application/json": { "schema": schema_ref(stem) } } });
    match &operation.declared_statuses {
        Some(statuses) => {
            for status in statuses
                .iter()
                .filter(|s| !operation.success_statuses.contains(s))
            {
                let stem = operation.error_schema_for(*status);
                responses.insert(
                    status.to_string(),
                    error(stem, "Error declared by the specification."),
                );
            }
        }
        None => {
            if let Some(stem) = &operation.validation_error_schema {
                responses.insert("422".into(), error(stem, "Validation error."));
            }
            responses.insert(
                "default".into(),
                error(
                    &operation.error_schema,
                    "Error; the mapping of statuses to conditions is not shown.",
                ),
            );
        }
    }
    responses
}

fn success_response(operation: &Operation) -> Value {
    let description = if operation.success_statuses.is_empty() {
        "Success; the status code is not shown by the specification (any 2xx)."
    } else {
        "Success."
    };
    match &operation.success_schema {
        Some(stem) => json!({
            "description": description,
            "content": { "application/json": { "schema": schema_ref(stem) } },
        }),
        None => json!({ "description": format!("{description} The response body is not shown.") }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_between_files_become_component_refs() {
        assert_eq!(
            component_ref("quote-create", "line-item.json"),
            "#/components/schemas/line-item"
        );
        assert_eq!(
            component_ref("vat-id-create", "vat-id.json#/$defs/country"),
            "#/components/schemas/vat-id/$defs/country"
        );
        assert_eq!(
            component_ref("vat-id", "#/$defs/type"),
            "#/components/schemas/vat-id/$defs/type"
        );
    }

    #[test]
    fn components_carry_no_ids_nor_negative_examples() {
        let document = openapi_document();
        let schemas = document["components"]["schemas"]
            .as_object()
            .expect("schemas");
        assert_eq!(schemas.len(), 27);
        let file_ref = regex::Regex::new(r##""\$ref":"[^"#]*\.json"##).expect("regex");
        for (stem, schema) in schemas {
            assert!(
                schema.get("$id").is_none() && schema.get("$schema").is_none(),
                "{stem}"
            );
            assert!(schema.get("x-negative-examples").is_none(), "{stem}");
            assert!(
                !file_ref.is_match(&schema.to_string()),
                "{stem} keeps a file $ref"
            );
        }
    }
}

#[cfg(test)]
mod org_header_tests {
    use super::*;

    #[test]
    fn the_org_header_placeholder_is_renamed_everywhere() {
        let text = openapi_document_with_org_header("x-partner-organization-id").to_string();
        assert!(!text.contains(BANKING_ORG_HEADER_PLACEHOLDER));
        assert!(text.contains("x-partner-organization-id"));
    }
}
