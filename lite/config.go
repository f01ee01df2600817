// Package lite is tonql's access to TON lite servers: tongo's liteapi
// client per server, wrapped with per-call timeouts, failover between
// servers, per-server backoff with jitter, a health check and logs that
// say what is wrong once instead of flooding.
package lite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tonkeeper/tongo/config"
)

// Public global configs, downloaded when nothing else is configured.
const (
	MainnetConfigURL = "https://ton.org/global.config.json"
	TestnetConfigURL = "https://ton.org/testnet-global.config.json"
)

// Settings say where the lite-server list comes from, in this order:
// ConfigRef (LITE_SERVERS_CONFIG: a path or http(s) URL of a TON global
// config JSON), Servers (LITE_SERVERS: tongo's "ip:port:base64key,..."),
// else the public config of Network, downloaded.
type Settings struct {
	ConfigRef string
	Servers   string
	Network   string // "mainnet" (default) or "testnet"
	HTTP      *http.Client
}

// Describe says where servers come from, for the printed configuration.
func (s Settings) Describe() string {
	switch {
	case s.ConfigRef != "":
		return s.ConfigRef
	case s.Servers != "":
		return fmt.Sprintf("LITE_SERVERS (%d servers)", strings.Count(s.Servers, ",")+1)
	}
	return s.publicURL() + " (downloaded at start)"
}

func (s Settings) publicURL() string {
	if s.Network == "testnet" {
		return TestnetConfigURL
	}
	return MainnetConfigURL
}

// Load resolves the server list. A list that cannot be had (download
// failed, file missing) is an error; the client retries it later.
func (s Settings) Load(ctx context.Context) ([]config.LiteServer, error) {
	if s.ConfigRef == "" && s.Servers != "" {
		servers, err := config.ParseLiteServersEnvVar(s.Servers)
		if err != nil {
			return nil, fmt.Errorf("LITE_SERVERS: %w", err)
		}
		if len(servers) == 0 {
			return nil, errors.New("LITE_SERVERS is empty")
		}
		return servers, nil
	}
	ref := s.ConfigRef
	if ref == "" {
		ref = s.publicURL()
	}
	var (
		file *config.GlobalConfigurationFile
		err  error
	)
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		file, err = s.download(ctx, ref)
	} else {
		file, err = config.ParseConfigFile(ref)
	}
	if err != nil {
		return nil, fmt.Errorf("lite-server config %s: %w", ref, err)
	}
	return file.LiteServers, nil
}

func (s Settings) download(ctx context.Context, url string) (*config.GlobalConfigurationFile, error) {
	hc := s.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	return config.ParseConfig(io.LimitReader(resp.Body, 4<<20))
}
