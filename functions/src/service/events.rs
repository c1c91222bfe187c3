//! Events as an answer carries them: each one rendered once, straight from its typed form to
//! JSON text through its wire form ([`crate::api::events`]), and embedded in the answer as it is
//! (the way views are). No intermediate `serde_json::Value` tree is built for them.

use serde_json::value::RawValue;

use crate::api::events::Wire;
use crate::error::ApiError;

/// Events already rendered, in the order they happened. The answer serializes them as a JSON
/// array of the texts as they are.
pub type Events = Vec<Box<RawValue>>;

/// Renders `events` once, appending them to `into`. An event that cannot be rendered is a bug:
/// a 500 with its cause, never a silent `null`.
pub fn render<E: Wire>(events: &[E], into: &mut Events) -> Result<(), ApiError> {
    into.reserve(events.len());
    for event in events {
        into.push(
            serde_json::value::to_raw_value(&event.wire())
                .map_err(|e| ApiError::Internal(Box::new(e)))?,
        );
    }
    Ok(())
}

/// `events`, rendered once.
pub fn rendered<E: Wire>(events: &[E]) -> Result<Events, ApiError> {
    let mut out = Events::new();
    render(events, &mut out)?;
    Ok(out)
}
