package modproto

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// cancelAfterFirst is a context whose first look says "going on" and every
// later one "cancelled": a cancel that lands while a decoder is reading.
type cancelAfterFirst struct {
	context.Context
	looks int
}

func (c *cancelAfterFirst) Err() error {
	c.looks++
	if c.looks > 1 {
		return context.Canceled
	}
	return nil
}

// TestDecodeStopsOnCancel: a cancel during a 4 MiB decode ends it with the
// context's error at the decoder's next look (every 64 KiB), not after
// the whole document.
func TestDecodeStopsOnCancel(t *testing.T) {
	payload := `[` + strings.Repeat(`[[[1,2,3]]],`, (4<<20)/12) + `0]`
	env := invokeEnvelope(payload)
	desc := []byte(`{` + skeleton + `,"x":` + payload + `}`)
	ctx := &cancelAfterFirst{Context: context.Background()}
	if _, err := DecodeEnvelopeContext(ctx, env); !errors.Is(err, context.Canceled) || ctx.looks != 2 {
		t.Errorf("DecodeEnvelopeContext: %v after %d looks", err, ctx.looks)
	}
	ctx = &cancelAfterFirst{Context: context.Background()}
	if _, err := DecodeDescriptorContext(ctx, desc); !errors.Is(err, context.Canceled) || ctx.looks != 2 {
		t.Errorf("DecodeDescriptorContext: %v after %d looks", err, ctx.looks)
	}
	// Not cancelled, both decode.
	if _, err := DecodeEnvelopeContext(context.Background(), env); err != nil {
		t.Error(err)
	}
	if _, err := DecodeDescriptorContext(context.Background(), desc); err != nil {
		t.Error(err)
	}
}
