package page

import "github.com/deeplda/deeplda/protocol"

// Routing is the page's bookkeeping of sessions: their ids, the session
// it awaits from deeplda ui's engine and the ended one it offers.
type Routing struct {
	// Remote: the page trains with deeplda ui's native engine, which
	// serves every tab and outlives a reload.
	Remote bool
	LastID int // the last session's id
	// Awaited is the session this page asked deeplda ui's engine for
	// (start, open, continue) whose start has not come yet (0: none):
	// until it comes, the page shows no other session.
	Awaited int
	// Offered is deeplda ui's session that ended before the page
	// connected, while the page offers it (0: none).
	Offered int
}

// Route is what the page does with an event of a session.
type Route int

// The routes of an event (Routing.Route).
const (
	RouteShown   Route = iota // the shown session's: the page applies it
	RouteOther                // a session the page does not show (or no longer)
	RouteOffered              // the offered session's: kept with it
	// RouteOffer: it starts deeplda ui's session that ended before the
	// page connected, which the page offers rather than showing it over
	// the settings it opened with.
	RouteOffer
	// RouteAdopt: it starts deeplda ui's session that this page did not
	// start (another tab's, or this page's before a reload): the page
	// shows it.
	RouteAdopt
)

// Next returns the id of the page's next session.
func (r *Routing) Next() int {
	r.LastID++
	return r.LastID
}

// Await records that the page asked for session id, which it awaits when
// deeplda ui's engine runs it.
func (r *Routing) Await(id int) {
	if r.Remote {
		r.Awaited = id
	}
}

// Route says what the page does with event ev of a session, where it
// shows session shown (nil: none), and records it: the awaited session's
// start (or its refusal or failure) ends the wait; an offered session is
// Offered, an adopted one's id is no longer the page's to give.
func (r *Routing) Route(ev protocol.Event, shown *Session) Route {
	if r.Offered != 0 && ev.Session == r.Offered {
		return RouteOffered
	}
	switch {
	case ev.Session == r.Awaited && (ev.Kind == protocol.EvSession || ev.Kind == protocol.EvRefused || ev.Kind == protocol.EvFailed || ev.Kind == protocol.EvNoData):
		r.Awaited = 0
	case ev.Kind == protocol.EvSession && r.Remote && r.Awaited == 0 && (shown == nil || shown.ID != ev.Session):
		if ev.Ended {
			r.Offered = ev.Session
			return RouteOffer
		}
		r.Offered = 0
		r.LastID = max(r.LastID, ev.Session)
		return RouteAdopt
	}
	if ev.Session == 0 || shown == nil || shown.ID != ev.Session {
		return RouteOther
	}
	return RouteShown
}
