//! Which operation an exchange is: its method and path against the path templates of
//! `operations.json`.

use crate::schema::OperationId;

/// The operation whose method is `method` and whose path template `path` fits, where one does.
pub fn find(method: &str, path: &str) -> Option<OperationId> {
    OperationId::find(method, path)
}

/// A path with its ids and other variable segments replaced, so that the requests to one
/// unlisted endpoint count together without naming ids (`/finops/v1/tags/{id}`).
pub fn shape(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            let variable = segment.len() > 12 && segment.chars().any(|c| c.is_ascii_digit())
                || segment.chars().all(|c| c.is_ascii_digit()) && !segment.is_empty();
            if variable {
                "{id}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_is_found_by_method_and_path_template() {
        let id = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
        assert_eq!(
            find("GET", &format!("/finops/v1/counterparts/{id}/vat-ids/{id}")),
            Some(OperationId::GetVatId)
        );
        assert_eq!(
            find("post", &format!("/finops/v1/counterparts/{id}/vat-ids")),
            Some(OperationId::CreateVatId)
        );
        assert_eq!(
            find("GET", "/finops/v1/events"),
            Some(OperationId::ListEvents)
        );
        assert_eq!(find("DELETE", "/finops/v1/events"), None);
        assert_eq!(find("GET", "/finops/v1/events/"), None);
        assert_eq!(find("GET", "/finops/v1/counterparts//vat-ids/x"), None);
        assert_eq!(find("GET", "/health"), None);
    }

    #[test]
    fn unlisted_paths_are_counted_by_their_shape_without_ids() {
        assert_eq!(
            shape("/finops/v1/tags/3fa85f64-5717-4562-b3fc-2c963f66afa6/x"),
            "/finops/v1/tags/{id}/x"
        );
        assert_eq!(shape("/items/42"), "/items/{id}");
        assert_eq!(shape("/health"), "/health");
    }
}
