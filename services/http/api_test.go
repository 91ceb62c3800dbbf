package http

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/services"
)

type apiReadArgs struct {
	Filename string        `lua:"filename"`
	IsSecret bool          `lua:"is_secret"`
	Poll     time.Duration `lua:"poll_frequency"`
}

type apiReadExports struct {
	Content string `lua:"content"`
}

// secretRead is a component whose exports are secret.
type secretRead struct{ nopComponent }

func (*secretRead) IsSecret() bool { return true }

type apiConsumer struct{}

type apiUserArgs struct {
	Header   string `lua:"header"`
	Plain    string `lua:"plain"`
	Password string `lua:"password" secret:"true"`
	Output   []any  `lua:"output"`
}

type apiInputExports struct {
	Input any `lua:"input"`
}

// apiHost is two file.read components (one secret), a sink and a
// component using all three and sending to the sink.
func apiHost() *fakeHost {
	input := &apiConsumer{}
	host := &fakeHost{}
	host.set(
		component.Info{
			ID: "file.read.plain", Name: "file.read", Label: "plain", Component: &nopComponent{},
			Health:     component.Health{Health: component.HealthHealthy, Message: "read plain.txt", UpdateTime: time.Unix(10, 0).UTC()},
			Arguments:  apiReadArgs{Filename: "plain.txt", Poll: time.Minute},
			Exports:    apiReadExports{Content: "hello\n"},
			Dependants: []string{"testing.user.u"},
		},
		component.Info{
			ID: "file.read.token", Name: "file.read", Label: "token", Component: &secretRead{},
			Arguments:  apiReadArgs{Filename: "token.txt", IsSecret: true, Poll: 200 * time.Millisecond},
			Exports:    apiReadExports{Content: "s3cret\n"},
			Dependants: []string{"http", "testing.user.u"},
		},
		component.Info{
			ID: "testing.sink.s", Name: "testing.sink", Label: "s", Component: &nopComponent{},
			Exports:    apiInputExports{Input: input},
			Dependants: []string{"testing.user.u"},
		},
		component.Info{
			ID: "testing.user.u", Name: "testing.user", Label: "u", Component: &nopComponent{},
			Arguments:    apiUserArgs{Header: "Bearer s3cret", Plain: "hello", Password: "pw", Output: []any{input}},
			Sends:        []component.Send{{Signal: "traces", To: "testing.sink.s", Items: 12}, {Signal: "logs", To: "", Items: 3}},
			Dependencies: []string{"file.read.plain", "file.read.token", "http", "testing.sink.s"},
		},
	)
	return host
}

func TestComponentsAPI(t *testing.T) {
	s := newHostedService(services.Options{}, apiHost())

	code, body := serve(s, "GET", "/api/v0/components")
	if code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 || list[0]["id"] != "file.read.plain" {
		t.Fatalf("list: %s", body)
	}

	for id, want := range map[string]string{
		"file.read.plain": `{
			"id": "file.read.plain", "name": "file.read", "label": "plain",
			"health": {"state": "healthy", "message": "read plain.txt", "updated_at": "1970-01-01T00:00:10Z"},
			"arguments": {"filename": "plain.txt", "is_secret": false, "poll_frequency": "1m0s"},
			"exports": {"content": "hello\n"},
			"dependencies": [], "dependants": ["testing.user.u"], "services": [], "sends": []}`,
		"file.read.token": `{
			"id": "file.read.token", "name": "file.read", "label": "token",
			"health": {"state": "unknown", "message": "", "updated_at": "0001-01-01T00:00:00Z"},
			"arguments": {"filename": "token.txt", "is_secret": true, "poll_frequency": "200ms"},
			"exports": {"content": "(secret)"},
			"dependencies": [], "dependants": ["http", "testing.user.u"], "services": [], "sends": []}`,
		"testing.user.u": `{
			"id": "testing.user.u", "name": "testing.user", "label": "u",
			"health": {"state": "unknown", "message": "", "updated_at": "0001-01-01T00:00:00Z"},
			"arguments": {"header": "(secret)", "plain": "hello", "password": "(secret)", "output": ["<testing.sink.s.input>"]},
			"exports": {},
			"dependencies": ["file.read.plain", "file.read.token", "testing.sink.s"], "dependants": [], "services": ["http"],
			"sends": [{"signal": "traces", "to": "testing.sink.s", "items": 12}, {"signal": "logs", "to": "", "items": 3}]}`,
	} {
		code, body := serve(s, "GET", "/api/v0/components/"+id)
		if code != 200 {
			t.Fatalf("%s: %d %s", id, code, body)
		}
		var got, wantV any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want), &wantV); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantV) {
			t.Errorf("%s:\n%s\nwant:\n%s", id, body, want)
		}
	}
	if code, _ := serve(s, "GET", "/api/v0/components/nope.nope.x"); code != 404 {
		t.Fatalf("unknown id: %d, want 404", code)
	}
}

// The API writes values as they are, not HTML-escaped ("\u003c"), and
// a component's page shows its arguments as the script would write them:
// a consumer as a link to its component, secrets redacted.
func TestReadableValues(t *testing.T) {
	s := newHostedService(services.Options{}, apiHost())
	_, body := serve(s, "GET", "/api/v0/components/testing.user.u")
	if !strings.Contains(body, `"<testing.sink.s.input>"`) || strings.Contains(body, `\u003c`) {
		t.Errorf("API escapes values: %s", body)
	}
	code, page := serve(s, "GET", "/component/testing.user.u")
	if code != 200 {
		t.Fatalf("%d %s", code, page)
	}
	args := page[strings.Index(page, `<pre id="arguments"`):]
	args = args[:strings.Index(args, "</pre>")]
	for _, want := range []string{
		`<span class="v-key">header</span> = <span class="v-secret">(secret)</span>,`,
		`<span class="v-key">password</span> = <span class="v-secret">(secret)</span>,`,
		`<span class="v-key">plain</span> = <span class="v-str">&#34;hello&#34;</span>,`,
		`<a class="v-ref" href="/component/testing.sink.s">testing.sink.s.input</a>,`,
	} {
		if !strings.Contains(args, want) {
			t.Errorf("arguments lack %s:\n%s", want, args)
		}
	}
	if strings.Contains(page, "s3cret") || strings.Contains(page, `\u003c`) || strings.Contains(page, "pw") {
		t.Errorf("page shows a secret or an escape:\n%s", args)
	}
}
