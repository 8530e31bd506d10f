//! Where the generator's schemas come from: the embedded registry, or any map of stems to schemas
//! (a test's own). The engine resolves every stem and `$ref` through a source and reads no file
//! itself; a source says whether it is the embedded registry, whose schemas never change, so
//! that what is compiled from it can be shared by every engine of the process.

use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Where schemas come from, by file stem (`quote-create`); `$ref`s resolve through it.
pub trait SchemaSource {
    fn resolve(&self, stem: &str) -> Option<&Value>;

    /// Whether this is the embedded registry, whose schemas never change: what engines compile
    /// from it is shared by every engine of the process with the same options.
    fn is_embedded(&self) -> bool {
        false
    }
}

impl SchemaSource for BTreeMap<String, Value> {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.get(stem)
    }
}

impl SchemaSource for HashMap<String, Value> {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.get(stem)
    }
}

impl<T: SchemaSource + ?Sized> SchemaSource for &T {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        (**self).resolve(stem)
    }
    fn is_embedded(&self) -> bool {
        (**self).is_embedded()
    }
}

impl<T: SchemaSource + ?Sized> SchemaSource for Arc<T> {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        (**self).resolve(stem)
    }
    fn is_embedded(&self) -> bool {
        (**self).is_embedded()
    }
}

impl SchemaSource for covenant_contract::schema::Registry {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.schema(stem)
    }
    fn is_embedded(&self) -> bool {
        std::ptr::eq(self, covenant_contract::schema::Registry::embedded())
    }
}
