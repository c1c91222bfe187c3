//! 바둑 (`spec/baduk.md`): board, ko, passes, scoring, clocks, undo, draw offers, SGF.
