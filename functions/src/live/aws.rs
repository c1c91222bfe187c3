//! The live channel on AWS (filled in below).
