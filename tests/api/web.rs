//! The web client's files over real HTTP: gzip when the request allows it (the body inflates to
//! the very bytes of the repository's file), the plain file otherwise, and `304` for a cached
//! copy.

use std::io::Read as _;

use madang_tests::spawn_app;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT_ENCODING, CONTENT_ENCODING, ETAG, IF_NONE_MATCH, VARY};

/// Each served path and the file of the repository it must be, byte for byte.
const FILES: &[(&str, &str)] = &[
    ("/", include_str!("../../web/index.html")),
    ("/app/app.js", include_str!("../../web/app.js")),
    ("/app/yut.js", include_str!("../../web/yut.js")),
    ("/app/baduk.js", include_str!("../../web/baduk.js")),
    ("/app/lobby.js", include_str!("../../web/lobby.js")),
    ("/app/ui.js", include_str!("../../web/ui.js")),
    ("/app/style.css", include_str!("../../web/style.css")),
    (
        "/client/madang.js",
        include_str!("../../clients/js/src/madang.js"),
    ),
];

fn inflate(bytes: &[u8]) -> String {
    let mut out = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut out)
        .expect("a valid gzip stream");
    out
}

#[tokio::test]
async fn web_files_are_gzipped_when_accepted_and_inflate_to_the_same_bytes() {
    let app = spawn_app().await;
    for (path, source) in FILES {
        let url = format!("{}{path}", app.base);
        // As browsers ask: the answer is compressed, and says it varies with the header.
        let r = app
            .http
            .get(&url)
            .header(ACCEPT_ENCODING, "gzip, deflate, br, zstd")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(r.headers()[CONTENT_ENCODING], "gzip", "{path}");
        assert_eq!(r.headers()[VARY], "accept-encoding", "{path}");
        assert_eq!(r.headers()["x-content-type-options"], "nosniff", "{path}");
        // The page keeps its policy: only its own origin, in either coding.
        if !path.starts_with("/app/") && !path.starts_with("/client/") {
            let csp = r.headers()["content-security-policy"].to_str().unwrap();
            assert!(csp.starts_with("default-src 'self'"), "{path}: {csp}");
        }
        let gz_etag = r.headers()[ETAG].clone();
        let body = r.bytes().await.unwrap();
        assert!(
            body.len() < source.len(),
            "{path}: {} bytes of {}",
            body.len(),
            source.len()
        );
        assert_eq!(inflate(&body), *source, "{path}");

        // Without gzip (no header, or gzip refused): the file itself, with another validator.
        for accept in [None, Some("br;q=1, gzip;q=0")] {
            let mut request = app.http.get(&url);
            if let Some(accept) = accept {
                request = request.header(ACCEPT_ENCODING, accept);
            }
            let r = request.send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK, "{path} {accept:?}");
            assert!(
                r.headers().get(CONTENT_ENCODING).is_none(),
                "{path} {accept:?}"
            );
            assert_eq!(r.headers()[VARY], "accept-encoding");
            assert_ne!(
                r.headers()[ETAG],
                gz_etag,
                "one strong validator per coding"
            );
            assert_eq!(r.text().await.unwrap(), *source, "{path} {accept:?}");
        }

        // A cached copy revalidates to a bodiless 304 carrying the same validator.
        let r = app
            .http
            .get(&url)
            .header(ACCEPT_ENCODING, "gzip")
            .header(IF_NONE_MATCH, gz_etag.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(r.headers()[ETAG], gz_etag);
        assert!(r.bytes().await.unwrap().is_empty());
        // Another file's validator (or a stale one) gets the whole file again.
        let r = app
            .http
            .get(&url)
            .header(ACCEPT_ENCODING, "gzip")
            .header(IF_NONE_MATCH, "\"0123456789abcdef\", W/\"stale\"")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(inflate(&r.bytes().await.unwrap()), *source);
    }
}
