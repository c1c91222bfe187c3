//! The pure codec between a [`StoredRoom`] and its DynamoDB item, and the plan of each save.
//!
//! One item per room. Attribute names are one letter because DynamoDB bills every byte of every
//! name on every read and write:
//!
//! | name | type | what |
//! |---|---|---|
//! | `id` | S | room id, the table's hash key |
//! | `v` | N | version |
//! | `b` | B | the encoded room (opaque) |
//! | `x` | N | expiry in epoch **seconds** (the unit DynamoDB TTL wants), rounded up |
//! | `p` | M | presence: player id → N epoch ms; written only by `create` and `touch` |
//! | `d` | N | due time in epoch ms — only while indexed |
//! | `s` | S | due-index shard, `"0"`..`"7"` — only while indexed |
//! | `w` | N | write stamp: a random number set by every create and save |
//! | `k` | B | a computer player's move kept for this version (`keep_plan`); every save removes it |
//!
//! `d` and `s` are the key of the sparse global secondary index [`DUE_INDEX`]: an item without
//! them is not in the index at all, so rooms with nothing to sweep cost no index storage or writes.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use madang_core::Millis;

use crate::store::{StoreError, StoredRoom};

/// A DynamoDB item, as the SDK hands it over.
pub type Item = HashMap<String, AttributeValue>;

/// Hash key: the room id.
pub const ID: &str = "id";
/// The room's version.
pub const VERSION: &str = "v";
/// The encoded room.
pub const BODY: &str = "b";
/// TTL attribute: expiry in epoch seconds.
pub const EXPIRES: &str = "x";
/// Presence map: player id → last seen, epoch ms.
pub const PRESENCE: &str = "p";
/// Due time (epoch ms), the range key of the due index.
pub const DUE: &str = "d";
/// Due-index shard, the hash key of the due index.
pub const SHARD: &str = "s";
/// A computer player's move kept for the stored version (opaque; `keep_plan`).
pub const PLAN: &str = "k";

/// Write stamp: a random number each create and save sets, so that a write whose answer was lost
/// (the SDK retried it, and the retry failed its own condition) can recognise itself — and tell
/// itself apart from another writer's identical write, which must stay a conflict.
pub const STAMP: &str = "w";

/// The sparse global secondary index of rooms with a due time (hash `s`, range `d`, keys only).
pub const DUE_INDEX: &str = "due";

/// How many shards the due index is spread over. Every due room of one shard shares a partition
/// key; eight keep each partition far below DynamoDB's per-partition write limit at any size this
/// service will see, while a sweep stays eight small queries.
pub const SHARDS: u64 = 8;

/// The due-index shard of a room: a stable hash of its id (FNV-1a, which unlike std's hasher
/// never changes between releases) modulo [`SHARDS`].
pub fn shard_of(id: &str) -> String {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (hash % SHARDS).to_string()
}

/// `expires_at` (epoch ms) as the TTL attribute (epoch seconds), rounded up so the store never
/// forgets a room before its time. Reads compare against `seconds * 1000`, so a room's expiry is
/// kept to the second.
pub fn ttl_seconds(expires_at: Millis) -> u64 {
    expires_at.div_ceil(1000)
}

/// A number attribute.
pub fn number(n: u64) -> AttributeValue {
    AttributeValue::N(n.to_string())
}

/// The whole item of a new room: every attribute, presence as a map (possibly empty, so `touch`
/// can always set an entry in it), and the index key only when the room has a due time.
pub fn to_item(room: &StoredRoom) -> Item {
    let presence = room
        .presence
        .iter()
        .map(|(player, seen)| (player.clone(), number(*seen)))
        .collect();
    let mut item = Item::from([
        (ID.to_owned(), AttributeValue::S(room.id.clone())),
        (VERSION.to_owned(), number(room.version)),
        (
            BODY.to_owned(),
            AttributeValue::B(Blob::new(room.body.clone())),
        ),
        (EXPIRES.to_owned(), number(ttl_seconds(room.expires_at))),
        (PRESENCE.to_owned(), AttributeValue::M(presence)),
    ]);
    if let Some(due) = room.due {
        item.insert(DUE.to_owned(), number(due));
        item.insert(SHARD.to_owned(), AttributeValue::S(shard_of(&room.id)));
    }
    item
}

/// Sets the write stamp on a whole item.
pub fn stamp(item: &mut Item, stamp: u64) {
    item.insert(STAMP.to_owned(), number(stamp));
}

/// The write stamp of a stored item (`None` for items written before stamps existed).
pub fn stamp_of(item: &Item) -> Option<u64> {
    optional_number(item, STAMP).ok().flatten()
}

/// Reads a room back from its item.
///
/// DynamoDB keeps only the indexed due time, so both `due` and `indexed_due` are `d`. Because the
/// index is lazy (see [`IndexWrite`]) that may be earlier than the room's exact next timeout; the
/// room layer recomputes the exact one from the body, and the store never needs it.
pub fn from_item(mut item: Item) -> Result<StoredRoom, StoreError> {
    let id = match item.remove(ID) {
        Some(AttributeValue::S(id)) => id,
        other => return Err(corrupt(ID, other.as_ref())),
    };
    let body = match item.remove(BODY) {
        Some(AttributeValue::B(body)) => body.into_inner(),
        other => return Err(corrupt(BODY, other.as_ref())),
    };
    let presence = match item.get(PRESENCE) {
        Some(AttributeValue::M(map)) => map
            .iter()
            .map(|(player, seen)| Ok((player.clone(), parse_number(PRESENCE, Some(seen))?)))
            .collect::<Result<BTreeMap<_, _>, StoreError>>()?,
        None => BTreeMap::new(),
        other => return Err(corrupt(PRESENCE, other)),
    };
    let due = optional_number(&item, DUE)?;
    let plan = match item.remove(PLAN) {
        Some(AttributeValue::B(plan)) => Some(plan.into_inner()),
        None => None,
        other => return Err(corrupt(PLAN, other.as_ref())),
    };
    Ok(StoredRoom {
        id,
        version: parse_number(VERSION, item.get(VERSION))?,
        body,
        due,
        expires_at: parse_number(EXPIRES, item.get(EXPIRES))?.saturating_mul(1000),
        presence,
        departed: Vec::new(),
        seen: None,
        indexed_due: due,
        plan,
    })
}

/// One entry of the due index (keys only): `(due, room id)`.
pub fn due_entry(item: &Item) -> Result<(Millis, String), StoreError> {
    let due = parse_number(DUE, item.get(DUE))?;
    match item.get(ID) {
        Some(AttributeValue::S(id)) => Ok((due, id.clone())),
        other => Err(corrupt(ID, other)),
    }
}

/// A number attribute that may be absent.
pub fn optional_number(item: &Item, name: &str) -> Result<Option<u64>, StoreError> {
    item.get(name)
        .map(|value| parse_number(name, Some(value)))
        .transpose()
}

fn parse_number(name: &str, value: Option<&AttributeValue>) -> Result<u64, StoreError> {
    match value {
        Some(AttributeValue::N(n)) => n.parse().map_err(|e| {
            StoreError::Corrupt(format!("attribute {name} is not a u64 ({n}): {e}").into())
        }),
        other => Err(corrupt(name, other)),
    }
}

fn corrupt(name: &str, value: Option<&AttributeValue>) -> StoreError {
    StoreError::Corrupt(
        match value {
            None => format!("attribute {name} is missing"),
            Some(value) => format!("attribute {name} has the wrong type: {value:?}"),
        }
        .into(),
    )
}

/// What a save does to the due index. The index is lazy: its entry may be *earlier* than the
/// room's exact due time, never later. Moving an entry costs two index writes (DynamoDB deletes
/// the old key and puts the new one), and in a game the next timeout moves later with almost
/// every action; so a save moves the entry only when it must come earlier. The sweeper, visiting
/// too early, finds nothing to fire and calls `reindex` with the exact time — one move per
/// sweep interval at most, instead of one per action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWrite {
    /// Set the entry to this time: the room was not indexed, or its due time came earlier.
    Set(Millis),
    /// The room has nothing due: remove the entry (the item leaves the sparse index). Done
    /// whatever was loaded: removing attributes an item does not have changes nothing and costs
    /// no index write, and it clears an entry the caller did not know of.
    Remove,
    /// The indexed time is at or before the new due time: leave it, but only while it still is
    /// (the save is conditioned on `d <= due`). A `reindex` racing between our load and our
    /// save could have moved the entry later than our new due time, which would let the sweeper
    /// miss it.
    KeepEarlier(Millis),
}

impl IndexWrite {
    /// The index write for a room whose new due time is `due`, when the index held
    /// `indexed_due` at load.
    pub fn plan(due: Option<Millis>, indexed_due: Option<Millis>) -> Self {
        match (due, indexed_due) {
            (None, _) => IndexWrite::Remove,
            (Some(due), Some(indexed)) if indexed <= due => IndexWrite::KeepEarlier(due),
            (Some(due), _) => IndexWrite::Set(due),
        }
    }

    /// The indexed time after the write, given what was indexed before.
    pub fn after(self, before: Option<Millis>) -> Option<Millis> {
        match self {
            IndexWrite::KeepEarlier(_) => before,
            IndexWrite::Set(due) => Some(due),
            IndexWrite::Remove => None,
        }
    }
}

/// Index write units a change of a room's index entry from `before` to `after` costs. A keys-only
/// entry is far below 1 KB, so each put or delete is one unit; changing the range key is both.
pub fn index_write_units(before: Option<Millis>, after: Option<Millis>) -> u64 {
    match (before, after) {
        (None, None) => 0,
        (None, Some(_)) | (Some(_), None) => 1,
        (Some(a), Some(b)) => {
            if a == b {
                0
            } else {
                2
            }
        }
    }
}

/// The one conditional `UpdateItem` of a save, as expressions and values.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveUpdate {
    /// The update expression: `SET v, b, x` plus whatever the index needs, `SET p.#seen` for
    /// the player seen by this change ([`StoredRoom::seen`]), and `REMOVE p.#dN` for each
    /// departed player, and always `REMOVE k` (a plan kept for the old version is stale). Never
    /// a `SET` of `p` whole: other players' entries belong to `touch`,
    /// and a save must not undo a touch that landed after its load.
    pub update: String,
    /// The condition: the version is still `expected` (and the index guard of
    /// [`IndexWrite::KeepEarlier`]).
    pub condition: String,
    /// The expression values.
    pub values: HashMap<String, AttributeValue>,
    /// The expression names: `#dN` → the id of the N-th departed player, `#seen` → the id of
    /// the player seen (ids are not valid names in an expression, so they go by placeholder).
    /// Empty when nobody departed and nobody was seen.
    pub names: HashMap<String, String>,
    /// What the save does to the index.
    pub index: IndexWrite,
}

impl SaveUpdate {
    /// The same save, also setting the write stamp.
    pub fn stamped(mut self, stamp: u64) -> Self {
        self.update = self.update.replacen("SET ", "SET w = :w, ", 1);
        self.values.insert(":w".to_owned(), number(stamp));
        self
    }

    /// The save of `room` over version `expected`, when the index held `indexed_due`.
    pub fn new(room: &StoredRoom, expected: u64, indexed_due: Option<Millis>) -> Self {
        let index = IndexWrite::plan(room.due, indexed_due);
        let mut values = HashMap::from([
            (":v".to_owned(), number(room.version)),
            (
                ":b".to_owned(),
                AttributeValue::B(Blob::new(room.body.clone())),
            ),
            (":x".to_owned(), number(ttl_seconds(room.expires_at))),
            (":expected".to_owned(), number(expected)),
        ]);
        let mut update = "SET v = :v, b = :b, x = :x".to_owned();
        let mut condition = "v = :expected".to_owned();
        // One expression has at most one REMOVE clause: the index's, the plan's and presence's
        // share it. A new version makes a kept plan stale: it goes (removing an attribute the
        // item does not have costs nothing).
        let mut remove: Vec<String> = Vec::new();
        match index {
            IndexWrite::Set(due) => {
                update.push_str(", d = :d, s = :s");
                values.insert(":d".to_owned(), number(due));
                values.insert(":s".to_owned(), AttributeValue::S(shard_of(&room.id)));
            }
            IndexWrite::Remove => remove.extend(["d".to_owned(), "s".to_owned()]),
            IndexWrite::KeepEarlier(due) => {
                condition.push_str(" AND d <= :d");
                values.insert(":d".to_owned(), number(due));
            }
        }
        let mut names = HashMap::new();
        // `p` exists on every item (`create` writes it, possibly empty), so a path into it
        // can be set.
        if let Some((player, at)) = room
            .seen
            .as_ref()
            .filter(|(p, _)| !room.departed.contains(p))
        {
            update.push_str(&format!(", {PRESENCE}.#seen = :seen"));
            values.insert(":seen".to_owned(), number(*at));
            names.insert("#seen".to_owned(), player.clone());
        }
        for (i, player) in room.departed.iter().enumerate() {
            let name = format!("#d{i}");
            remove.push(format!("{PRESENCE}.{name}"));
            names.insert(name, player.clone());
        }
        remove.push(PLAN.to_owned());
        update.push_str(" REMOVE ");
        update.push_str(&remove.join(", "));
        SaveUpdate {
            update,
            condition,
            values,
            names,
            index,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(due: Option<Millis>) -> StoredRoom {
        StoredRoom {
            id: "r1".to_owned(),
            version: 7,
            body: vec![0, 1, 2, 255],
            due,
            expires_at: 1_800_000_000_000,
            presence: BTreeMap::from([("p1".to_owned(), 5), ("p2".to_owned(), 6)]),
            departed: Vec::new(),
            seen: None,
            indexed_due: due,
            plan: None,
        }
    }

    #[test]
    fn a_stamp_is_written_by_creates_and_saves_and_read_back() {
        let mut item = to_item(&room(None));
        assert_eq!(stamp_of(&item), None);
        stamp(&mut item, 77);
        assert_eq!(stamp_of(&item), Some(77));
        assert_eq!(
            from_item(item).unwrap(),
            room(None),
            "the stamp is not part of the room"
        );
        for due in [None, Some(3), Some(9)] {
            let save = SaveUpdate::new(&room(due), 6, Some(5)).stamped(42);
            assert!(
                save.update.starts_with("SET w = :w, v = :v"),
                "{}",
                save.update
            );
            assert_eq!(save.values[":w"], number(42));
        }
    }

    #[test]
    fn a_room_survives_the_round_trip_through_its_item() {
        for due in [None, Some(1_700_000_000_123)] {
            let room = room(due);
            assert_eq!(from_item(to_item(&room)).unwrap(), room);
        }
    }

    #[test]
    fn the_item_uses_short_names_and_ttl_seconds() {
        let item = to_item(&room(Some(42)));
        let mut names: Vec<_> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["b", "d", "id", "p", "s", "v", "x"]);
        assert_eq!(item[EXPIRES], AttributeValue::N("1800000000".to_owned()));
        assert_eq!(item[DUE], AttributeValue::N("42".to_owned()));
    }

    #[test]
    fn a_room_without_a_due_time_stays_out_of_the_sparse_index() {
        let item = to_item(&room(None));
        assert!(!item.contains_key(DUE) && !item.contains_key(SHARD));
    }

    #[test]
    fn an_empty_presence_is_still_written_as_a_map() {
        let mut room = room(None);
        room.presence.clear();
        assert_eq!(to_item(&room)[PRESENCE], AttributeValue::M(HashMap::new()));
    }

    #[test]
    fn expiry_rounds_up_to_the_second_so_a_room_is_never_forgotten_early() {
        assert_eq!(ttl_seconds(1_000), 1);
        assert_eq!(ttl_seconds(1_001), 2);
        assert_eq!(ttl_seconds(0), 0);
    }

    #[test]
    fn shards_are_stable_and_spread() {
        assert_eq!(shard_of("room-a"), shard_of("room-a"));
        let shards: std::collections::BTreeSet<_> =
            (0..200).map(|i| shard_of(&format!("room-{i}"))).collect();
        let expected: std::collections::BTreeSet<_> = (0..SHARDS).map(|s| s.to_string()).collect();
        assert_eq!(shards, expected);
        // Pinned: a changed hash would strand every indexed room in the wrong shard.
        assert_eq!(
            shard_of(""),
            (0xcbf2_9ce4_8422_2325_u64 % SHARDS).to_string()
        );
    }

    #[test]
    fn a_corrupt_item_is_reported_not_panicked_on() {
        let mut item = to_item(&room(None));
        item.insert(VERSION.to_owned(), AttributeValue::S("seven".to_owned()));
        assert!(matches!(from_item(item), Err(StoreError::Corrupt(_))));
        let mut item = to_item(&room(None));
        item.remove(BODY);
        assert!(matches!(from_item(item), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn the_index_moves_only_when_the_due_time_comes_earlier() {
        use IndexWrite::*;
        assert_eq!(IndexWrite::plan(None, None), Remove);
        assert_eq!(IndexWrite::plan(None, Some(5)), Remove);
        assert_eq!(IndexWrite::plan(Some(5), None), Set(5));
        assert_eq!(IndexWrite::plan(Some(4), Some(5)), Set(4));
        assert_eq!(IndexWrite::plan(Some(5), Some(5)), KeepEarlier(5));
        assert_eq!(IndexWrite::plan(Some(9), Some(5)), KeepEarlier(9));
    }

    #[test]
    fn a_save_never_writes_presence() {
        for indexed in [None, Some(1), Some(u64::MAX)] {
            for due in [None, Some(2)] {
                let save = SaveUpdate::new(&room(due), 6, indexed);
                assert!(!save.update.contains('p'), "{}", save.update);
                assert!(save.condition.starts_with("v = :expected"));
                assert!(save.names.is_empty());
            }
        }
    }

    #[test]
    fn a_save_removes_departed_presence_in_its_one_remove_clause() {
        let mut departed = room(None);
        departed.departed = vec!["p1".to_owned(), "a.b c".to_owned()];
        let save = SaveUpdate::new(&departed, 6, Some(5));
        assert_eq!(
            save.update,
            "SET v = :v, b = :b, x = :x REMOVE d, s, p.#d0, p.#d1, k"
        );
        assert_eq!(
            save.names,
            HashMap::from([
                ("#d0".to_owned(), "p1".to_owned()),
                ("#d1".to_owned(), "a.b c".to_owned())
            ])
        );
        departed.due = Some(9);
        let save = SaveUpdate::new(&departed, 6, Some(5)).stamped(1);
        assert_eq!(
            save.update,
            "SET w = :w, v = :v, b = :b, x = :x REMOVE p.#d0, p.#d1, k"
        );
        assert!(!save.update.contains(":p"), "presence is never SET");
    }

    #[test]
    fn a_save_sets_the_seen_players_entry_alone_and_never_a_departed_one() {
        let mut seen = room(Some(9));
        seen.seen = Some(("p1.x y".to_owned(), 42));
        let save = SaveUpdate::new(&seen, 6, None);
        assert_eq!(
            save.update,
            "SET v = :v, b = :b, x = :x, d = :d, s = :s, p.#seen = :seen REMOVE k"
        );
        assert_eq!(save.values[":seen"], number(42));
        assert_eq!(
            save.names,
            HashMap::from([("#seen".to_owned(), "p1.x y".to_owned())])
        );
        // A player who left in this change is removed, not seen (one path, one clause).
        seen.departed = vec!["p1.x y".to_owned()];
        let save = SaveUpdate::new(&seen, 6, Some(9));
        assert_eq!(save.update, "SET v = :v, b = :b, x = :x REMOVE p.#d0, k");
        assert!(!save.values.contains_key(":seen"));
    }

    #[test]
    fn keeping_an_earlier_entry_is_guarded_against_a_racing_reindex() {
        let save = SaveUpdate::new(&room(Some(9)), 6, Some(5));
        assert_eq!(save.update, "SET v = :v, b = :b, x = :x REMOVE k");
        assert_eq!(save.condition, "v = :expected AND d <= :d");
        assert_eq!(save.values[":d"], number(9));
        for indexed in [None, Some(5)] {
            let save = SaveUpdate::new(&room(None), 6, indexed);
            assert_eq!(save.update, "SET v = :v, b = :b, x = :x REMOVE d, s, k");
        }
        let save = SaveUpdate::new(&room(Some(4)), 6, Some(5));
        assert_eq!(
            save.update,
            "SET v = :v, b = :b, x = :x, d = :d, s = :s REMOVE k"
        );
        assert_eq!(save.condition, "v = :expected");
    }

    #[test]
    fn index_write_units_count_puts_and_deletes() {
        assert_eq!(index_write_units(None, None), 0);
        assert_eq!(index_write_units(None, Some(1)), 1);
        assert_eq!(index_write_units(Some(1), None), 1);
        assert_eq!(index_write_units(Some(1), Some(1)), 0);
        assert_eq!(index_write_units(Some(1), Some(2)), 2);
    }
}
