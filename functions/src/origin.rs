//! The origin (`scheme://host[:port]`) of a URL that ends up in a header: the web app's own
//! origin in link cards, the live channel's in the CSP's `connect-src` and in its `Origin`
//! check. One parser for all of them, strict about what a header may carry.

/// `scheme://host[:port]` of an absolute URL with one of `schemes`, lowercase, if its host is
/// plain: letters, digits, `.`, `-`, a port, or a bracketed IPv6 address. Nothing else can
/// reach a header, where a `;` or a space would add a CSP directive or a source. `None` for
/// anything else.
pub fn origin(url: &str, schemes: &[&str]) -> Option<String> {
    let uri: axum::http::Uri = url.trim().parse().ok()?;
    let scheme = uri.scheme_str().filter(|s| schemes.contains(s))?;
    let authority = uri.authority()?.as_str();
    let plain = !authority.is_empty()
        && authority
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    plain.then(|| format!("{scheme}://{}", authority.to_ascii_lowercase()))
}
