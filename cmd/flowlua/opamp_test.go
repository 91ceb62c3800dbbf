package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"
	"github.com/open-telemetry/opamp-go/server"
	"github.com/open-telemetry/opamp-go/server/types"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["opampserver"] = cmdOpAMPServer
}

// opampServer is an OpAMP server run by a test (opamp-go's server): it
// keeps what its agent last reported and offers it remote configs.
type opampServer struct {
	srv  server.OpAMPServer
	addr string

	mu      sync.Mutex
	conn    types.Connection // the agent's current connection
	agent   *protobufs.AgentToServer
	header  http.Header // of the last connection request
	config  *protobufs.AgentRemoteConfig
	changed chan struct{} // closed and replaced on each report
}

var opampServers sync.Map // by "$WORK/name"

func (s *opampServer) start(addr string) error {
	s.changed = make(chan struct{})
	s.agent = &protobufs.AgentToServer{}
	s.srv = server.New(nil)
	callbacks := types.ConnectionCallbacks{
		OnConnected: func(_ context.Context, conn types.Connection) {
			s.mu.Lock()
			s.conn = conn
			s.mu.Unlock()
		},
		OnMessage: s.onMessage,
	}
	err := s.srv.Start(server.StartSettings{
		ListenEndpoint: addr,
		Settings: server.Settings{Callbacks: types.Callbacks{
			OnConnecting: func(r *http.Request) types.ConnectionResponse {
				s.mu.Lock()
				s.header = r.Header.Clone()
				s.mu.Unlock()
				return types.ConnectionResponse{Accept: true, ConnectionCallbacks: callbacks}
			},
		}},
	})
	if err != nil {
		return err
	}
	s.addr = s.srv.Addr().String()
	return nil
}

// onMessage merges what the agent reports and answers with the remote
// config when the agent does not report its hash.
func (s *opampServer) onMessage(_ context.Context, conn types.Connection, msg *protobufs.AgentToServer) *protobufs.ServerToAgent {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn = conn
	a := s.agent
	a.InstanceUid = msg.InstanceUid
	if msg.AgentDescription != nil {
		a.AgentDescription = msg.AgentDescription
	}
	if msg.Health != nil {
		a.Health = msg.Health
	}
	if msg.RemoteConfigStatus != nil {
		a.RemoteConfigStatus = msg.RemoteConfigStatus
	}
	if msg.EffectiveConfig != nil {
		a.EffectiveConfig = msg.EffectiveConfig
	}
	close(s.changed)
	s.changed = make(chan struct{})
	out := &protobufs.ServerToAgent{InstanceUid: msg.InstanceUid}
	if s.config != nil && string(a.RemoteConfigStatus.GetLastRemoteConfigHash()) != string(s.config.ConfigHash) {
		out.RemoteConfig = s.config
	}
	return out
}

// push makes files the remote config and sends it to the connected
// agent; it returns the config's hash.
func (s *opampServer) push(files map[string]string) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	cm := map[string]*protobufs.AgentConfigFile{}
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", n, files[n])
		cm[n] = &protobufs.AgentConfigFile{Body: []byte(files[n]), ContentType: "text/x-lua"}
	}
	rc := &protobufs.AgentRemoteConfig{Config: &protobufs.AgentConfigMap{ConfigMap: cm}, ConfigHash: h.Sum(nil)}
	s.mu.Lock()
	s.config = rc
	conn, uid := s.conn, s.agent.InstanceUid
	s.mu.Unlock()
	if conn == nil {
		return nil, fmt.Errorf("no agent connected")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return rc.ConfigHash, conn.Send(ctx, &protobufs.ServerToAgent{InstanceUid: uid, RemoteConfig: rc})
}

// render returns what the agent reported of what, as text.
func (s *opampServer) render(what string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agent
	var b strings.Builder
	switch what {
	case "description":
		for _, kv := range append(a.AgentDescription.GetIdentifyingAttributes(), a.AgentDescription.GetNonIdentifyingAttributes()...) {
			fmt.Fprintf(&b, "%s=%s\n", kv.GetKey(), kv.GetValue().GetStringValue())
		}
	case "health":
		h := a.Health
		if h == nil {
			return ""
		}
		fmt.Fprintf(&b, "agent healthy=%t status=%s\n", h.GetHealthy(), h.GetStatus())
		ids := make([]string, 0, len(h.GetComponentHealthMap()))
		for id := range h.GetComponentHealthMap() {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			c := h.GetComponentHealthMap()[id]
			fmt.Fprintf(&b, "%s healthy=%t status=%s error=%s\n", id, c.GetHealthy(), c.GetStatus(), c.GetLastError())
		}
	case "status":
		st := a.RemoteConfigStatus
		if st == nil {
			return ""
		}
		fmt.Fprintf(&b, "%x %s %s\n", st.GetLastRemoteConfigHash(), statusName(st.GetStatus()), st.GetErrorMessage())
	case "effective":
		cm := a.EffectiveConfig.GetConfigMap().GetConfigMap()
		names := make([]string, 0, len(cm))
		for n := range cm {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "-- %s (%s) --\n%s\n", n, cm[n].GetContentType(), cm[n].GetBody())
		}
	case "uid":
		fmt.Fprintf(&b, "%x\n", a.InstanceUid)
	case "header":
		for k, vs := range s.header {
			for _, v := range vs {
				fmt.Fprintf(&b, "%s: %s\n", k, v)
			}
		}
	}
	return b.String()
}

func statusName(st protobufs.RemoteConfigStatuses) string {
	return strings.TrimPrefix(st.String(), "RemoteConfigStatuses_")
}

// waitFor polls until render(what) matches re or within passed, and
// returns the last rendering.
func (s *opampServer) waitFor(what string, re *regexp.Regexp, within time.Duration) (string, bool) {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		text := s.render(what)
		if re.MatchString(text) {
			return text, true
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		case <-deadline.C:
			return s.render(what), false
		}
	}
}

// waitStatus waits until the agent reports a final status of hash, and
// returns it as "APPLIED" or "FAILED: message".
func (s *opampServer) waitStatus(hash []byte) (string, error) {
	re := regexp.MustCompile(fmt.Sprintf(`^%x (APPLIED|FAILED)`, hash))
	text, ok := s.waitFor("status", re, waitLimit)
	if !ok {
		return "", fmt.Errorf("no APPLIED or FAILED status for %x within %s; last: %q", hash, waitLimit, text)
	}
	_, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	st, msg, _ := strings.Cut(rest, " ")
	if st == "FAILED" {
		return "FAILED: " + msg, nil
	}
	return st, nil
}

// opampserver start NAME: starts an OpAMP server on a free port and sets
// $NAME to its WebSocket URL (ws://ADDR/v1/opamp); starting a stopped
// server again listens on the same address, knowing nothing of before.
// opampserver stop NAME: stops it (the agent loses its connection).
// opampserver wait NAME WHAT REGEXP [WITHIN]: polls until what the agent
// reported of WHAT (description, health, status, effective, uid, header)
// matches REGEXP, for WITHIN (default 30s); prints it.
// opampserver push NAME FILE[=AS]...: sends a remote config of the
// files (each named AS, default its own name), waits for its final
// status and prints it: APPLIED, or FAILED: the error.
// opampserver pushmany NAME N FILE[=AS]...: pushes N configs in turn,
// the i-th with @N@ in the files replaced by i, each of which must apply.
// opampserver offer NAME HEADER=VALUE: offers the agent connection
// settings with that header.
func cmdOpAMPServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: opampserver start|stop|wait|push|pushmany|offer NAME ...")
	}
	key := ts.Getenv("WORK") + "/" + args[1]
	v, _ := opampServers.Load(key)
	s, _ := v.(*opampServer)
	if args[0] != "start" && s == nil {
		ts.Fatalf("no OpAMP server %q: start it with opampserver start %s", args[1], args[1])
	}
	switch args[0] {
	case "start":
		addr := "127.0.0.1:0"
		if s != nil {
			addr = s.addr
		}
		s = &opampServer{}
		ts.Check(s.start(addr))
		opampServers.Store(key, s)
		ts.Setenv(args[1], "ws://"+s.addr+"/v1/opamp")
		ts.Defer(func() { _ = s.srv.Stop(context.Background()) })
	case "stop":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ts.Check(s.srv.Stop(ctx))
	case "wait":
		if len(args) < 4 || len(args) > 5 {
			ts.Fatalf("usage: opampserver wait NAME WHAT REGEXP [WITHIN]")
		}
		re, err := regexp.Compile(args[3])
		ts.Check(err)
		within := waitLimit
		if len(args) == 5 {
			within, err = time.ParseDuration(args[4])
			ts.Check(err)
		}
		start := time.Now()
		text, ok := s.waitFor(args[2], re, within)
		if !ok {
			ts.Fatalf("the agent's %s did not match %q within %s; it is:\n%s", args[2], args[3], within, text)
		}
		ts.Logf("matched after %s", time.Since(start).Round(time.Millisecond))
		fmt.Fprint(ts.Stdout(), text)
	case "push", "pushmany":
		rest := args[2:]
		n := 1
		if args[0] == "pushmany" {
			if len(rest) < 2 {
				ts.Fatalf("usage: opampserver pushmany NAME N FILE[=AS]...")
			}
			var err error
			n, err = strconv.Atoi(rest[0])
			ts.Check(err)
			rest = rest[1:]
		}
		if len(rest) == 0 {
			ts.Fatalf("usage: opampserver push NAME FILE[=AS]...")
		}
		for i := 1; i <= n; i++ {
			files := map[string]string{}
			for _, f := range rest {
				file, as, ok := strings.Cut(f, "=")
				if !ok {
					as = file
				}
				files[as] = strings.ReplaceAll(ts.ReadFile(file), "@N@", strconv.Itoa(i))
			}
			hash, err := s.push(files)
			ts.Check(err)
			status, err := s.waitStatus(hash)
			ts.Check(err)
			if args[0] == "pushmany" && status != "APPLIED" {
				ts.Fatalf("config %d of %d: %s", i, n, status)
			}
			if args[0] == "push" {
				fmt.Fprintln(ts.Stdout(), status)
			}
		}
	case "offer":
		if len(args) != 3 {
			ts.Fatalf("usage: opampserver offer NAME HEADER=VALUE")
		}
		k, val, ok := strings.Cut(args[2], "=")
		if !ok {
			ts.Fatalf("want HEADER=VALUE, got %q", args[2])
		}
		s.mu.Lock()
		conn, uid := s.conn, s.agent.InstanceUid
		s.mu.Unlock()
		if conn == nil {
			ts.Fatalf("no agent connected")
		}
		offer := &protobufs.OpAMPConnectionSettings{Headers: &protobufs.Headers{Headers: []*protobufs.Header{{Key: k, Value: val}}}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ts.Check(conn.Send(ctx, &protobufs.ServerToAgent{InstanceUid: uid, ConnectionSettings: &protobufs.ConnectionSettingsOffers{Hash: []byte(args[2]), Opamp: offer}}))
	default:
		ts.Fatalf("unknown opampserver command %q", args[0])
	}
}
