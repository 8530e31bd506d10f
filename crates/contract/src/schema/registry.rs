//! The schema files, compiled once, and the mapping from a validation error to its rule.

use super::Problem;
use jsonschema::Validator;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

/// The base of every schema `$id`.
pub const BASE_URI: &str = "https://covenant.invalid/schemas/";

/// Declares the embedded schema files once: each stem is the file name under `schemas/`.
macro_rules! schema_files {
    ($($stem:literal),* $(,)?) => {
        /// Every schema file of `schemas/` as (stem, text), embedded so that runs never depend on
        /// the working directory.
        pub const SCHEMA_FILES: &[(&str, &str)] = &[
            $(($stem, include_str!(concat!("../../../../schemas/", $stem, ".json")))),*
        ];
    };
}

schema_files!(
    "quote-create",
    "invoice-create",
    "based-on-create",
    "receivable-create",
    "line-item",
    "quote-response",
    "invoice-response",
    "credit-note-response",
    "receivable-response",
    "vat-id-create",
    "vat-id",
    "comment-update",
    "comment",
    "mailbox-domain-create",
    "mailbox-domain",
    "dns-record",
    "event",
    "finance-page",
    "events-page",
    "banking-page",
    "transactions-page",
    "transaction",
    "velocity-control-create",
    "velocity-control",
    "finance-error",
    "finance-validation-error",
    "banking-error",
);

/// One reason an instance does not validate, with the instance path apart from the schema path.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SchemaIssue {
    /// JSON pointer into the instance.
    pub instance_path: String,
    /// The evaluation path of the failing keyword, `$ref` segments included.
    pub schema_path: String,
    /// What was wrong, without the offending value (it may be long or sensitive).
    pub message: String,
    /// The nearest `x-rule` (or `x-keyword-rules` entry) on the schema path.
    pub rule: Option<String>,
}

/// The compiled schemas. Build once (`Registry::embedded`) and share: validators are cached.
pub struct Registry {
    documents: Vec<(String, Value)>,
    validators: HashMap<String, Validator>,
    /// Per stem, the rules a validation judges (see [`Registry::rules_of`]).
    rules: HashMap<String, Vec<String>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("schemas", &self.documents.len())
            .finish()
    }
}

impl Registry {
    /// The schemas embedded in this build.
    pub fn embedded() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(|| {
            Registry::from_sources(SCHEMA_FILES)
                .expect("the embedded schemas are checked by `covenant schemas check` and tests")
        })
    }

    /// Compiles a set of (stem, JSON text) schema files; every problem is reported.
    pub fn from_sources<S: AsRef<str>, T: AsRef<str>>(
        sources: &[(S, T)],
    ) -> Result<Registry, Vec<Problem>> {
        let (registry, problems) = Registry::build(sources);
        if problems.is_empty() {
            Ok(registry)
        } else {
            Err(problems)
        }
    }

    /// Compiles what can be compiled and lists the problems of the rest.
    pub(crate) fn build<S: AsRef<str>, T: AsRef<str>>(
        sources: &[(S, T)],
    ) -> (Registry, Vec<Problem>) {
        let mut problems = Vec::new();
        let mut documents = Vec::new();
        for (stem, text) in sources {
            let stem = stem.as_ref();
            match parse_schema(stem, text.as_ref()) {
                Ok(doc) => documents.push((stem.to_string(), doc)),
                Err(mut found) => problems.append(&mut found),
            }
        }
        let validators = compile_all(&documents, &mut problems);
        let mut registry = Registry {
            documents,
            validators,
            rules: HashMap::new(),
        };
        registry.rules = registry
            .names()
            .map(|stem| (stem.to_owned(), registry.collect_rules_of(stem)))
            .collect();
        (registry, problems)
    }

    /// The stems of the schema files, in table order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.documents.iter().map(|(stem, _)| stem.as_str())
    }

    /// The schema document of a stem.
    pub fn schema(&self, stem: &str) -> Option<&Value> {
        self.documents
            .iter()
            .find(|(s, _)| s == stem)
            .map(|(_, doc)| doc)
    }

    /// Whether the instance validates against the schema `stem` (false for an unknown stem).
    /// The validator of `stem`, compiled once with the registry (draft 2020-12, formats
    /// checked), when it compiled.
    pub fn validator(&self, stem: &str) -> Option<&Validator> {
        self.validators.get(stem)
    }

    pub fn is_valid(&self, stem: &str, instance: &Value) -> bool {
        self.validators
            .get(stem)
            .is_some_and(|validator| validator.is_valid(instance))
    }

    /// Validates an instance; every issue carries its nearest rule. An unknown stem is one issue.
    pub fn validate(&self, stem: &str, instance: &Value) -> Result<(), Vec<SchemaIssue>> {
        let Some(validator) = self.validators.get(stem) else {
            return Err(vec![SchemaIssue {
                instance_path: String::new(),
                schema_path: String::new(),
                message: format!("no schema named {stem:?} in schemas/"),
                rule: None,
            }]);
        };
        let issues: Vec<SchemaIssue> = validator
            .iter_errors(instance)
            .map(|error| {
                let schema_path = error.evaluation_path().as_str().to_string();
                SchemaIssue {
                    instance_path: error.instance_path().as_str().to_string(),
                    rule: self.rule_at(stem, &schema_path),
                    message: self.message(stem, &schema_path, &error),
                    schema_path,
                }
            })
            .collect();
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    /// The nearest rule on a schema path (an evaluation path, `$ref` segments included): the
    /// deepest `x-rule` of a subschema on the path, or an `x-keyword-rules` entry naming the
    /// keyword the path goes through, whichever is deeper.
    pub fn rule_at(&self, stem: &str, schema_path: &str) -> Option<String> {
        let mut rule = None;
        self.walk(stem, schema_path, |node, keyword| {
            let keyword_rule =
                keyword.and_then(|keyword| node.get("x-keyword-rules")?.get(keyword)?.as_str());
            if let Some(found) = keyword_rule.or_else(|| node.get("x-rule")?.as_str()) {
                rule = Some(found.to_string());
            }
        });
        rule
    }

    /// Every rule a validation against `stem` judges: each `x-rule` and `x-keyword-rules` value
    /// of its document and of the documents it refers to, in id order. A response validated
    /// against the schema is evidence for each of them. Empty for an unknown stem.
    pub fn rules_of(&self, stem: &str) -> &[String] {
        self.rules.get(stem).map(Vec::as_slice).unwrap_or_default()
    }

    /// The top-level fields the schema `stem` lists (its `properties`, through `$ref`s to other
    /// files, `allOf` and `anyOf`), or with `items`, those of a page's items (`data.items`):
    /// where the spec lists a response's fields, every other field is one it leaves open.
    /// Empty for an unknown stem or a shape the spec does not show.
    pub fn listed_fields(&self, stem: &str, items: bool) -> BTreeSet<String> {
        let mut fields = BTreeSet::new();
        if let Some(schema) = self.schema(stem) {
            let mut seen = Vec::new();
            self.collect_fields(schema, items, &mut fields, &mut seen);
        }
        fields
    }

    fn collect_fields(
        &self,
        node: &Value,
        items: bool,
        fields: &mut BTreeSet<String>,
        seen: &mut Vec<String>,
    ) {
        if let Some(target) = node.get("$ref").and_then(Value::as_str) {
            // Only whole files: a `#/...` fragment names a field's schema, not a response.
            if let Some(stem) = target.strip_suffix(".json") {
                if !seen.iter().any(|s| s == stem) {
                    seen.push(stem.to_owned());
                    if let Some(doc) = self.schema(stem) {
                        self.collect_fields(doc, items, fields, seen);
                    }
                }
            }
        }
        for keyword in ["allOf", "anyOf"] {
            for sub in node
                .get(keyword)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.collect_fields(sub, items, fields, seen);
            }
        }
        let properties = node.get("properties").and_then(Value::as_object);
        match (items, properties) {
            (false, Some(properties)) => fields.extend(properties.keys().cloned()),
            (true, Some(properties)) => {
                if let Some(item) = properties.get("data").and_then(|d| d.get("items")) {
                    self.collect_fields(item, false, fields, seen);
                }
            }
            (_, None) => {}
        }
    }

    fn collect_rules_of(&self, stem: &str) -> Vec<String> {
        let mut rules = std::collections::BTreeSet::new();
        let mut files = vec![stem.to_owned()];
        let mut seen = std::collections::HashSet::new();
        while let Some(file) = files.pop() {
            if !seen.insert(file.clone()) {
                continue;
            }
            if let Some(doc) = self.schema(&file) {
                collect_rules(doc, &mut rules, &mut files);
            }
        }
        rules.into_iter().collect()
    }

    /// The subschema a schema path ends at.
    fn node_at(&self, stem: &str, schema_path: &str) -> Option<&Value> {
        self.walk(stem, schema_path, |_, _| {})
    }

    /// Follows a schema path from the root of `stem`, through `$ref`s between files. `visit` sees
    /// each node with the keyword the path takes next from it (`None` for the last node).
    /// Returns the last node, or `None` when the path leaves the schema.
    fn walk<'s>(
        &'s self,
        stem: &str,
        schema_path: &str,
        mut visit: impl FnMut(&'s Value, Option<&str>),
    ) -> Option<&'s Value> {
        let mut file = stem.to_string();
        let mut node = self.schema(stem)?;
        for segment in pointer_segments(schema_path) {
            visit(node, Some(&segment));
            node = if segment == "$ref" {
                let (target, found) = self.resolve_ref(&file, node.get("$ref")?.as_str()?)?;
                file = target;
                found
            } else {
                child(node, &segment)?
            };
        }
        visit(node, None);
        Some(node)
    }

    /// A message for an error that names what failed but never the instance's value.
    fn message(
        &self,
        stem: &str,
        schema_path: &str,
        error: &jsonschema::ValidationError<'_>,
    ) -> String {
        use jsonschema::error::ValidationErrorKind;
        match error.kind() {
            ValidationErrorKind::Not { .. } => {
                let described = self
                    .node_at(stem, schema_path)
                    .and_then(|node| node.get("description"))
                    .and_then(Value::as_str)
                    .unwrap_or("it matches a subschema it must not match");
                format!("value is not allowed: {described}")
            }
            ValidationErrorKind::Type { .. } | ValidationErrorKind::Format { .. } => {
                let parent = schema_path.rsplit_once('/').map_or("", |(p, _)| p);
                let node = self.node_at(stem, parent);
                format!(
                    "{} where the spec states {}",
                    shown(error.instance()),
                    stated(node, error.kind())
                )
            }
            _ => {
                // The validator's own sentence names the value; a long value is cut.
                let full = error.to_string();
                if full.chars().count() <= 200 {
                    full
                } else {
                    format!(
                        "{} (the value: {})",
                        error.masked(),
                        shown(error.instance())
                    )
                }
            }
        }
    }

    /// Resolves a `$ref` written in `file`: `other.json`, `other.json#/pointer` or `#/pointer`.
    fn resolve_ref(&self, file: &str, reference: &str) -> Option<(String, &Value)> {
        let (target, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let target = if target.is_empty() {
            file.to_string()
        } else {
            target.trim_end_matches(".json").to_string()
        };
        let doc = self.schema(&target)?;
        let node = if fragment.is_empty() {
            doc
        } else {
            doc.pointer(fragment)?
        };
        Some((target, node))
    }
}

/// A value as a message shows it: JSON, cut to a readable length.
fn shown(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// What the schema node a `type` or `format` error comes from states, in words: its format
/// ("a uuid", "a date-time"), else its type or types ("a string or null").
fn stated(node: Option<&Value>, kind: &jsonschema::error::ValidationErrorKind) -> String {
    use jsonschema::error::ValidationErrorKind;
    let format = match kind {
        ValidationErrorKind::Format { format } => Some(format.as_str()),
        _ => node.and_then(|n| n.get("format")).and_then(Value::as_str),
    };
    let types: Vec<&str> = match node.and_then(|n| n.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let article = |word: &str| match word.chars().next() {
        // "an integer", "an object", but "a uuid", "a uri".
        Some('a' | 'e' | 'i' | 'o') => format!("an {word}"),
        _ => format!("a {word}"),
    };
    let mut words: Vec<String> = types
        .iter()
        .map(|t| match (*t, format) {
            ("string", Some(f)) => article(f),
            ("null", _) => "null".to_owned(),
            (t, _) => article(t),
        })
        .collect();
    if words.is_empty() {
        words.push(format.map_or_else(|| "another value".to_owned(), article));
    }
    words.join(" or ")
}

/// The rules a schema node names (examples aside), and the files its `$ref`s name.
fn collect_rules(
    node: &Value,
    rules: &mut std::collections::BTreeSet<String>,
    files: &mut Vec<String>,
) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                match key.as_str() {
                    "x-negative-examples" | "examples" => {}
                    "x-rule" => rules.extend(value.as_str().map(str::to_owned)),
                    "x-keyword-rules" => rules.extend(
                        value
                            .as_object()
                            .into_iter()
                            .flat_map(|m| m.values())
                            .filter_map(|v| v.as_str().map(str::to_owned)),
                    ),
                    "$ref" => {
                        let file = value.as_str().and_then(|r| r.split('#').next());
                        if let Some(file) = file.filter(|f| !f.is_empty()) {
                            files.push(file.trim_end_matches(".json").to_owned());
                        }
                    }
                    _ => collect_rules(value, rules, files),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_rules(i, rules, files)),
        _ => {}
    }
}

fn child<'v>(node: &'v Value, segment: &str) -> Option<&'v Value> {
    match node {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => items.get(segment.parse::<usize>().ok()?),
        _ => None,
    }
}

/// The unescaped segments of a JSON pointer.
fn pointer_segments(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
}

/// Parses one schema file and checks it against the 2020-12 meta-schema and the `$id` convention.
fn parse_schema(stem: &str, text: &str) -> Result<Value, Vec<Problem>> {
    let file = format!("schemas/{stem}.json");
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        vec![Problem::new(
            &file,
            "",
            format!("does not parse as JSON: {e}"),
        )]
    })?;
    let mut problems: Vec<Problem> = jsonschema::draft202012::meta::validator()
        .iter_errors(&doc)
        .map(|e| {
            Problem::new(
                &file,
                e.instance_path().as_str(),
                format!("breaks the 2020-12 meta-schema: {}", e.masked()),
            )
        })
        .collect();
    let expected_id = format!("{BASE_URI}{stem}.json");
    if doc.get("$id").and_then(Value::as_str) != Some(expected_id.as_str()) {
        problems.push(Problem::new(
            &file,
            "/$id",
            format!("must be {expected_id:?}"),
        ));
    }
    if doc.get("$schema").and_then(Value::as_str)
        != Some("https://json-schema.org/draft/2020-12/schema")
    {
        problems.push(Problem::new(
            &file,
            "/$schema",
            "must be \"https://json-schema.org/draft/2020-12/schema\"",
        ));
    }
    if problems.is_empty() {
        Ok(doc)
    } else {
        Err(problems)
    }
}

/// Compiles every document against a registry of all of them, so `$ref`s between files resolve
/// in memory; nothing is ever fetched.
fn compile_all(
    documents: &[(String, Value)],
    problems: &mut Vec<Problem>,
) -> HashMap<String, Validator> {
    let mut validators = HashMap::new();
    let resources = documents
        .iter()
        .map(|(stem, doc)| (format!("{BASE_URI}{stem}.json"), doc.clone()));
    let registry = match jsonschema::Registry::new()
        .extend(resources)
        .and_then(|builder| builder.prepare())
    {
        Ok(registry) => registry,
        Err(e) => {
            problems.push(Problem::new(
                "schemas/",
                "",
                format!("the schema set does not form a registry: {e}"),
            ));
            return validators;
        }
    };
    for (stem, doc) in documents {
        let built = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .offline()
            .with_registry(&registry)
            .build(doc);
        match built {
            Ok(validator) => {
                validators.insert(stem.clone(), validator);
            }
            Err(e) => problems.push(Problem::new(
                &format!("schemas/{stem}.json"),
                e.instance_path().as_str(),
                format!("does not compile: {e}"),
            )),
        }
    }
    validators
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_fields_follow_refs_to_the_fields_the_spec_lists() {
        let registry = Registry::embedded();
        let vat = registry.listed_fields("vat-id", false);
        assert_eq!(
            vat.iter().map(String::as_str).collect::<Vec<_>>(),
            ["counterpart_id", "country", "id", "type", "value"]
        );
        let page = registry.listed_fields("events-page", false);
        assert!(page.contains("data") && page.contains("next_pagination_token"));
        let events = registry.listed_fields("events-page", true);
        assert!(events.contains("object") && events.contains("api_version"));
        assert!(!events.contains("data"));
        let receivable = registry.listed_fields("receivable-response", false);
        assert!(receivable.contains("memo") && receivable.contains("file_language"));
        assert!(registry.listed_fields("transactions-page", true).is_empty());
        assert!(registry.listed_fields("no-such-schema", false).is_empty());
    }

    #[test]
    fn a_type_or_format_issue_shows_the_value_and_what_the_spec_states() {
        let registry = Registry::embedded();
        let vat = serde_json::json!({
            "id": null, "counterpart_id": "not-an-id", "value": "DE1", "country": "DE",
            "type": "eu_vat"
        });
        let issues = registry.validate("vat-id", &vat).expect_err("two issues");
        let messages: Vec<&str> = issues.iter().map(|i| i.message.as_str()).collect();
        assert!(
            messages.contains(&"null where the spec states a uuid"),
            "{messages:?}"
        );
        assert!(
            messages.contains(&"\"not-an-id\" where the spec states a uuid"),
            "{messages:?}"
        );
    }
}
