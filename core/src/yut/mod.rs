//! 윷놀이 (`spec/yut.md`): options, board graph, throws, turn flow, moves, ranking, timeouts.
