//! Where compiling a schema is ([`Context`], [`Place`]), and the error it gives where a keyword
//! is not supported: shared by compiling and the `allOf` merge it starts with.

use crate::{GenOptions, GenerateError};

/// What compiling needs besides the schema: the options and where we are.
pub(crate) struct Context<'a> {
    pub options: &'a GenOptions,
    /// The stem being compiled, for error messages.
    pub stem: &'a str,
}

/// Where in the schema tree compiling is: the stems whose document root this is (options keyed
/// by stem apply here), and a pointer for messages.
#[derive(Clone, Default)]
pub(super) struct Place {
    pub(super) roots: Vec<String>,
    pub(super) pointer: String,
}

impl Place {
    pub(super) fn child(&self, segment: &str) -> Place {
        Place {
            roots: Vec::new(),
            pointer: format!("{}/{}", self.pointer, segment),
        }
    }
    pub(super) fn branch(&self, segment: &str) -> Place {
        Place {
            roots: self.roots.clone(),
            pointer: format!("{}/{}", self.pointer, segment),
        }
    }
}

pub(super) fn unsupported(ctx: &Context<'_>, place: &Place, what: &str) -> GenerateError {
    GenerateError::Unsupported {
        stem: ctx.stem.to_string(),
        pointer: place.pointer.clone(),
        what: what.to_string(),
    }
}
