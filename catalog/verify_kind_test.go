package catalog_test

import "github.com/topicsnap/topicsnap/catalog"

// problemKind is p's Kind (its own file: TestVerifyNamesEachDamage runs
// against a build whose Problem had none with a stub of it).
func problemKind(p catalog.Problem) string { return p.Kind }
