package config

// Query is a URL query: the values of each parameter, as net/url's Values
// holds them. The page parses and writes it through the browser's
// URLSearchParams, which keeps net/url (and the IP address parsing it
// brings) out of the page's WebAssembly.
type Query map[string][]string

// Get returns the first value of key ("" when it is absent).
func (q Query) Get(key string) string {
	if vs := q[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Has reports whether key is present (with any value, "" included).
func (q Query) Has(key string) bool {
	_, ok := q[key]
	return ok
}

// Set makes v the only value of key.
func (q Query) Set(key, v string) { q[key] = []string{v} }
