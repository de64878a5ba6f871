package page

import (
	"testing"

	"github.com/deeplda/deeplda/protocol"
)

func TestRouting(t *testing.T) {
	r := &Routing{}
	if r.Next() != 1 || r.Next() != 2 {
		t.Fatal("Next does not count")
	}
	r.Await(2)
	if r.Awaited != 0 {
		t.Error("a page of its own engine awaits")
	}
	shown := &Session{ID: 2}
	for _, c := range []struct {
		ev   protocol.Event
		want Route
	}{
		{protocol.Event{Kind: protocol.EvProgress, Session: 2}, RouteShown},
		{protocol.Event{Kind: protocol.EvProgress, Session: 1}, RouteOther},
		{protocol.Event{Kind: protocol.EvLoading}, RouteOther},
		{protocol.Event{Kind: protocol.EvSession, Session: 9}, RouteOther}, // not remote: never adopted
	} {
		if got := r.Route(c.ev, shown); got != c.want {
			t.Errorf("%s of %d: %v, want %v", c.ev.Kind, c.ev.Session, got, c.want)
		}
	}
	if r.Route(protocol.Event{Kind: protocol.EvProgress, Session: 2}, nil) != RouteOther {
		t.Error("an event routed to no session shown")
	}
}

func TestRoutingRemote(t *testing.T) {
	r := &Routing{Remote: true, LastID: 100}
	shown := &Session{ID: r.Next()}
	r.Await(shown.ID)
	// While the page awaits its session, another's start is not adopted.
	if got := r.Route(protocol.Event{Kind: protocol.EvSession, Session: 7}, shown); got != RouteOther || r.Awaited != shown.ID {
		t.Errorf("another session while awaiting: %v, awaited %d", got, r.Awaited)
	}
	if got := r.Route(protocol.Event{Kind: protocol.EvSession, Session: shown.ID}, shown); got != RouteShown || r.Awaited != 0 {
		t.Errorf("the awaited start: %v, awaited %d", got, r.Awaited)
	}
	if got := r.Route(protocol.Event{Kind: protocol.EvSession, Session: 50, Ended: true}, shown); got != RouteOffer || r.Offered != 50 {
		t.Errorf("an ended session: %v, offered %d", got, r.Offered)
	}
	if got := r.Route(protocol.Event{Kind: protocol.EvRun, Session: 50}, shown); got != RouteOffered {
		t.Errorf("the offered session's run: %v", got)
	}
	if got := r.Route(protocol.Event{Kind: protocol.EvSession, Session: 500}, shown); got != RouteAdopt || r.Offered != 0 || r.LastID != 500 {
		t.Errorf("another tab's session: %v, offered %d, last id %d", got, r.Offered, r.LastID)
	}
	if r.Next() != 501 {
		t.Error("the next id is an adopted session's")
	}
	r.Await(600)
	if got := r.Route(protocol.Event{Kind: protocol.EvRefused, Session: 600}, shown); got != RouteOther || r.Awaited != 0 {
		t.Errorf("the awaited session refused: %v, awaited %d", got, r.Awaited)
	}
}
