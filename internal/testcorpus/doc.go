// Package testcorpus locates the shared test corpus: real module fixtures,
// request schemas, markdown and tables that live beside the repository
// (../shared/corpus), not in it. Tests whose purpose is to sweep every real
// corpus file reach it only through Dir or Lookup, so a clone with nothing
// beside it still passes: they skip with one line saying how to point them
// at the corpus. Under CI (CI=true, or MODBAY_REQUIRE_CORPUS=1) a missing
// corpus fails the test instead, so CI cannot pass by skipping them.
package testcorpus
