//! Content codings of answers (RFC 9110, 8.4.1): a target may answer `gzip` whether covenant
//! asked for it or not (a request without `Accept-Encoding` accepts any coding), so every body
//! is read decoded, as any client reads it. Covenant never asks for a coding of its own accord
//! (no `Accept-Encoding` is added to what a case sends): the request on the wire is the one its
//! curl shows. This never judges: an answer it cannot decode is an error of its case.

use std::io::Read;

/// Why an answer's body could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CodingError {
    #[error("the answer is in the content coding {0:?}, which covenant cannot decode (it reads gzip and deflate)")]
    Unknown(String),
    #[error("the {coding} body could not be decoded: {why}")]
    Broken { coding: String, why: String },
    #[error("the decoded body exceeds {0} bytes")]
    TooLarge(u64),
}

/// `body` decoded by every coding `Content-Encoding` names, the last applied first; at most
/// `max` bytes. A body without codings (or `identity`) is returned as it is.
pub fn decoded(
    headers: &[(String, String)],
    mut body: Vec<u8>,
    max: u64,
) -> Result<Vec<u8>, CodingError> {
    let codings: Vec<String> = headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("content-encoding"))
        .flat_map(|(_, value)| value.split(','))
        .map(|coding| coding.trim().to_ascii_lowercase())
        .filter(|coding| !coding.is_empty() && coding != "identity")
        .collect();
    for coding in codings.iter().rev() {
        body = match coding.as_str() {
            "gzip" | "x-gzip" => {
                read_all(flate2::read::MultiGzDecoder::new(&body[..]), coding, max)?
            }
            // `deflate` is the zlib format (RFC 9110, 8.4.1.2); some servers send it raw.
            "deflate" => read_all(flate2::read::ZlibDecoder::new(&body[..]), coding, max)
                .or_else(|_| read_all(flate2::read::DeflateDecoder::new(&body[..]), coding, max))?,
            other => return Err(CodingError::Unknown(other.to_owned())),
        };
    }
    Ok(body)
}

/// Whether a request's headers ask for a content coding other than `identity`: its curl then
/// needs `--compressed` to show the answer as covenant read it.
pub fn asks_for_coding(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("accept-encoding"))
        .flat_map(|(_, value)| value.split(','))
        .map(|item| item.split(';').next().unwrap_or("").trim())
        .any(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case("identity"))
}

fn read_all(decoder: impl Read, coding: &str, max: u64) -> Result<Vec<u8>, CodingError> {
    let mut out = Vec::new();
    decoder
        .take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| CodingError::Broken {
            coding: coding.to_owned(),
            why: e.to_string(),
        })?;
    if out.len() as u64 > max {
        return Err(CodingError::TooLarge(max));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).expect("in memory");
        encoder.finish().expect("in memory")
    }

    fn coded(value: &str) -> Vec<(String, String)> {
        vec![("Content-Encoding".to_owned(), value.to_owned())]
    }

    #[test]
    fn a_gzip_answer_is_read_as_its_json_and_a_plain_one_as_it_is() {
        let json = br#"{"data":[]}"#;
        assert_eq!(decoded(&coded("gzip"), gzip(json), 100), Ok(json.to_vec()));
        assert_eq!(
            decoded(&coded("x-gzip"), gzip(json), 100),
            Ok(json.to_vec())
        );
        assert_eq!(decoded(&[], json.to_vec(), 100), Ok(json.to_vec()));
        assert_eq!(
            decoded(&coded("identity"), json.to_vec(), 100),
            Ok(json.to_vec())
        );
        let twice = gzip(&gzip(json));
        assert_eq!(decoded(&coded("gzip, gzip"), twice, 100), Ok(json.to_vec()));
    }

    #[test]
    fn a_deflate_answer_is_read_in_the_zlib_format_and_raw() {
        let json = br#"{"a":1}"#;
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(json).expect("in memory");
        let zlib = zlib.finish().expect("in memory");
        assert_eq!(decoded(&coded("deflate"), zlib, 100), Ok(json.to_vec()));
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(json).expect("in memory");
        let raw = raw.finish().expect("in memory");
        assert_eq!(decoded(&coded("deflate"), raw, 100), Ok(json.to_vec()));
    }

    #[test]
    fn a_broken_unknown_or_oversized_coding_is_an_error_never_a_body() {
        let broken = decoded(&coded("gzip"), b"not gzip".to_vec(), 100);
        assert!(
            matches!(broken, Err(CodingError::Broken { .. })),
            "{broken:?}"
        );
        let unknown = decoded(&coded("br"), b"x".to_vec(), 100);
        assert_eq!(unknown, Err(CodingError::Unknown("br".to_owned())));
        let bomb = gzip(&[b' '; 10_000]);
        assert_eq!(
            decoded(&coded("gzip"), bomb, 1000),
            Err(CodingError::TooLarge(1000))
        );
    }

    #[test]
    fn only_a_request_naming_a_coding_asks_for_one() {
        let asks = |value: &str| asks_for_coding(&[("Accept-Encoding".into(), value.into())]);
        assert!(asks("gzip"));
        assert!(asks("identity;q=1, gzip;q=0.5"));
        assert!(!asks("identity"));
        assert!(!asks(""));
        assert!(!asks_for_coding(&[("accept".into(), "gzip".into())]));
    }
}
