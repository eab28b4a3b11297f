package restore

import (
	"errors"
	"testing"
)

// TestAckedAllocatesNothing: the promise of a record acknowledged without
// an error allocates nothing (it ran once per record produced: the old
// closure took the address of its err parameter, which made every call
// allocate it), and the first error of several is the one kept.
func TestAckedAllocatesNothing(t *testing.T) {
	p := &txnProducer{}
	promise := p.acked
	if n := testing.AllocsPerRun(1000, func() { promise(nil, nil) }); n != 0 {
		t.Errorf("an acknowledged record's promise made %v allocations, want 0", n)
	}
	if p.produceErr.Load() != nil {
		t.Fatalf("an error kept after acknowledgements without one: %v", *p.produceErr.Load())
	}
	first, second := errors.New("first"), errors.New("second")
	promise(nil, first)
	promise(nil, second)
	promise(nil, nil)
	if got := p.produceErr.Load(); got == nil || *got != first {
		t.Fatalf("kept %v, want the first error", got)
	}
}
