//! Counting what the store spends, for cost reports: units per action, index writes per game.
//!
//! A store given a [`CapacityMeter`] asks DynamoDB for `ReturnConsumedCapacity=INDEXES` (the
//! total plus the table/index breakdown; it costs nothing) on every call and adds the answers up.
//! The emulators are not DynamoDB here: dynalite does not count index writes, moto counts one unit
//! per call whatever the size, and neither returns the breakdown. So the meter also keeps the
//! store's own count of index write units, derived from what each write did to the index entry
//! — exact for a keys-only index, and the same on every backend.

use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::ConsumedCapacity;

use super::item::DUE_INDEX;

/// Capacity is reported in multiples of 0.5; counting thousandths keeps the sums exact.
const MILLI: f64 = 1000.0;

/// Accumulates the capacity a [`super::DynamoStore`] consumed. Shareable between stores and
/// tasks; all counters only grow (take two [`CapacityMeter::report`]s and subtract).
#[derive(Debug, Default)]
pub struct CapacityMeter {
    reads: AtomicU64,
    writes: AtomicU64,
    conditional_failures: AtomicU64,
    read_milli: AtomicU64,
    write_milli: AtomicU64,
    reported_index_write_milli: AtomicU64,
    index_write_units: AtomicU64,
}

/// What a [`CapacityMeter`] has counted so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CapacityReport {
    /// Read calls (GetItem, Query) that succeeded.
    pub reads: u64,
    /// Write calls (PutItem, UpdateItem) that succeeded.
    pub writes: u64,
    /// Writes refused by their condition. DynamoDB bills them too (about the item's size), but
    /// returns no consumed capacity with the error, so they are counted here instead.
    pub conditional_failures: u64,
    /// Read units DynamoDB reported, table and index.
    pub read_units: f64,
    /// Write units DynamoDB reported, table and index (real DynamoDB includes the index).
    pub write_units: f64,
    /// Write units DynamoDB reported for the due index alone (real DynamoDB only; the emulators
    /// leave it at zero).
    pub reported_index_write_units: f64,
    /// Index write units by the store's own count: one per entry put or deleted.
    pub index_write_units: u64,
}

impl CapacityReport {
    /// The counts of `self` since `earlier`.
    pub fn since(&self, earlier: &CapacityReport) -> CapacityReport {
        CapacityReport {
            reads: self.reads - earlier.reads,
            writes: self.writes - earlier.writes,
            conditional_failures: self.conditional_failures - earlier.conditional_failures,
            read_units: self.read_units - earlier.read_units,
            write_units: self.write_units - earlier.write_units,
            reported_index_write_units: self.reported_index_write_units
                - earlier.reported_index_write_units,
            index_write_units: self.index_write_units - earlier.index_write_units,
        }
    }
}

/// Whether a call read or wrote.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Call {
    Read,
    Write,
}

fn milli(units: f64) -> u64 {
    // Units are small non-negative multiples of 0.5; the cast cannot truncate anything real.
    (units.max(0.0) * MILLI).round() as u64
}

impl CapacityMeter {
    /// A meter at zero.
    pub fn new() -> Self {
        CapacityMeter::default()
    }

    /// Everything counted so far.
    pub fn report(&self) -> CapacityReport {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        CapacityReport {
            reads: get(&self.reads),
            writes: get(&self.writes),
            conditional_failures: get(&self.conditional_failures),
            read_units: get(&self.read_milli) as f64 / MILLI,
            write_units: get(&self.write_milli) as f64 / MILLI,
            reported_index_write_units: get(&self.reported_index_write_milli) as f64 / MILLI,
            index_write_units: get(&self.index_write_units),
        }
    }

    /// Records one successful call, what DynamoDB said it consumed, and the index write units
    /// the store knows it caused.
    pub(crate) fn record(
        &self,
        call: Call,
        consumed: Option<&ConsumedCapacity>,
        index_write_units: u64,
    ) {
        let (count, units) = match call {
            Call::Read => (&self.reads, &self.read_milli),
            Call::Write => (&self.writes, &self.write_milli),
        };
        count.fetch_add(1, Ordering::Relaxed);
        self.index_write_units
            .fetch_add(index_write_units, Ordering::Relaxed);
        let Some(consumed) = consumed else { return };
        units.fetch_add(
            milli(consumed.capacity_units().unwrap_or(0.0)),
            Ordering::Relaxed,
        );
        if let (Call::Write, Some(index)) = (
            call,
            consumed
                .global_secondary_indexes()
                .and_then(|indexes| indexes.get(DUE_INDEX)),
        ) {
            self.reported_index_write_milli.fetch_add(
                milli(index.capacity_units().unwrap_or(0.0)),
                Ordering::Relaxed,
            );
        }
    }

    /// Records a write its condition refused.
    pub(crate) fn record_conditional_failure(&self) {
        self.conditional_failures.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use aws_sdk_dynamodb::types::Capacity;

    use super::*;

    #[test]
    fn the_meter_adds_reported_units_and_its_own_index_count() {
        let meter = CapacityMeter::new();
        let write = ConsumedCapacity::builder()
            .capacity_units(3.0)
            .set_global_secondary_indexes(Some(HashMap::from([(
                DUE_INDEX.to_owned(),
                Capacity::builder().capacity_units(2.0).build(),
            )])))
            .build();
        let before = meter.report();
        meter.record(Call::Write, Some(&write), 2);
        meter.record(
            Call::Read,
            Some(&ConsumedCapacity::builder().capacity_units(0.5).build()),
            0,
        );
        meter.record(Call::Read, None, 0);
        meter.record_conditional_failure();
        let spent = meter.report().since(&before);
        assert_eq!(
            spent,
            CapacityReport {
                reads: 2,
                writes: 1,
                conditional_failures: 1,
                read_units: 0.5,
                write_units: 3.0,
                reported_index_write_units: 2.0,
                index_write_units: 2,
            }
        );
    }
}
