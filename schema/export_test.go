package schema

// Compiles is how many compiles Compile has run (cache misses), for tests
// that prove a schema is compiled once however many readers it has.
func Compiles() int64 { return compiles.Load() }
