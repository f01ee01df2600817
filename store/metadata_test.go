package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/chain"
)

func tokenContent(i int, content string) chain.TokenContent {
	return chain.TokenContent{
		Address:     fmt.Sprintf("0:%064X", i),
		Kind:        chain.TokenJettonMaster,
		ContentHash: sha256.Sum256([]byte(content)),
		Content:     []byte(content),
	}
}

func TestMetadataEnqueueClaimSave(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		a, b := tokenContent(1, "a"), tokenContent(2, "b")
		n, err := s.EnqueueTokenContent(ctx, []chain.TokenContent{a, b, a})
		require.NoError(t, err)
		require.Equal(t, 2, n)

		got, err := s.TokenMetadata(ctx, []string{a.Address, b.Address, "0:FF"})
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.False(t, got[a.Address].Valid)
		require.Equal(t, pendingReason, got[a.Address].Reason)
		require.Nil(t, got[a.Address].FetchedAt)
		require.NotNil(t, got[a.Address].NextAttemptAt)

		// The same content again changes nothing.
		n, err = s.EnqueueTokenContent(ctx, []chain.TokenContent{a, b})
		require.NoError(t, err)
		require.Zero(t, n)

		now := time.Now().Add(time.Second)
		jobs, err := s.ClaimTokenJobs(ctx, now, time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, jobs, 2)
		require.ElementsMatch(t, []string{a.Address, b.Address}, []string{jobs[0].Address, jobs[1].Address})
		for _, j := range jobs {
			want := a
			if j.Address == b.Address {
				want = b
			}
			require.Equal(t, want, j.TokenContent)
			require.False(t, j.Valid)
		}
		// Leased: nobody else takes them until the lease ends.
		again, err := s.ClaimTokenJobs(ctx, now, time.Minute, 10)
		require.NoError(t, err)
		require.Empty(t, again)
		again, err = s.ClaimTokenJobs(ctx, now.Add(2*time.Minute), time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, again, 2, "a worker that died leaves its jobs due after the lease")

		// Saved with every field; read back the same.
		fetched := now.Truncate(time.Millisecond).UTC()
		next := fetched.Add(time.Hour)
		md := chain.TokenMetadata{Address: a.Address, Kind: a.Kind, ContentHash: a.ContentHash, Valid: true,
			Name: ptrTo("Tonstakers TON"), Symbol: ptrTo("tsTON"), Decimals: ptrTo(9), Image: ptrTo("https://i"),
			Description: ptrTo("d"), URI: ptrTo("https://u"), Extra: json.RawMessage(`{"social":["x"]}`),
			Source: chain.MetadataSemichain, FetchedAt: &fetched, NextAttemptAt: &next, UpdatedAt: fetched}
		ok, err := s.SaveTokenMetadata(ctx, md)
		require.NoError(t, err)
		require.True(t, ok)
		got, err = s.TokenMetadata(ctx, []string{a.Address})
		require.NoError(t, err)
		require.Equal(t, md, got[a.Address])

		// A refresh that fails keeps the values and notes the failure.
		retry := fetched.Add(time.Minute)
		ok, err = s.RecordTokenFailure(ctx, a.Address, a.ContentHash, 1, "timeout", &retry, fetched)
		require.NoError(t, err)
		require.True(t, ok)
		got, err = s.TokenMetadata(ctx, []string{a.Address})
		require.NoError(t, err)
		require.True(t, got[a.Address].Valid)
		require.Equal(t, "tsTON", *got[a.Address].Symbol)
		require.Equal(t, "timeout", got[a.Address].LastError)
		require.Equal(t, 1, got[a.Address].Attempts)
		require.Equal(t, retry, *got[a.Address].NextAttemptAt)

		// New content: the old metadata goes, the token is due.
		a2 := tokenContent(1, "a2")
		n, err = s.EnqueueTokenContent(ctx, []chain.TokenContent{a2})
		require.NoError(t, err)
		require.Equal(t, 1, n)
		got, err = s.TokenMetadata(ctx, []string{a.Address})
		require.NoError(t, err)
		require.Equal(t, a2.ContentHash, got[a.Address].ContentHash)
		require.Nil(t, got[a.Address].Symbol)
		require.Nil(t, got[a.Address].Extra)
		require.Zero(t, got[a.Address].Attempts)
		require.Equal(t, pendingReason, got[a.Address].Reason)

		// A worker that made metadata from the old content cannot store it.
		ok, err = s.SaveTokenMetadata(ctx, md)
		require.NoError(t, err)
		require.False(t, ok)
		ok, err = s.RecordTokenFailure(ctx, a.Address, a.ContentHash, 2, "timeout", nil, fetched)
		require.NoError(t, err)
		require.False(t, ok)

		// Refresh on demand; release on stop.
		n, err = s.RefreshTokenMetadata(ctx, []string{b.Address, "0:0000"}, now)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		jobs, err = s.ClaimTokenJobs(ctx, now, time.Hour, 10)
		require.NoError(t, err)
		require.Len(t, jobs, 2) // a (new content) and b (refreshed)
		require.NoError(t, s.ReleaseTokenJobs(ctx, []string{b.Address}, now))
		jobs, err = s.ClaimTokenJobs(ctx, now, time.Hour, 10)
		require.NoError(t, err)
		require.Len(t, jobs, 1)
		require.Equal(t, b.Address, jobs[0].Address)
	})
}

// TestMetadataClaimsAreDisjoint: workers claiming at once never get the
// same token.
func TestMetadataClaimsAreDisjoint(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var all []chain.TokenContent
		for i := range 60 {
			all = append(all, tokenContent(i+1, fmt.Sprint(i)))
		}
		_, err := s.EnqueueTokenContent(ctx, all)
		require.NoError(t, err)
		now := time.Now().Add(time.Second)
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					jobs, err := s.ClaimTokenJobs(ctx, now, time.Hour, 4)
					if err != nil {
						t.Error(err)
						return
					}
					if len(jobs) == 0 {
						return
					}
					mu.Lock()
					for _, j := range jobs {
						seen[j.Address]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		require.Len(t, seen, len(all))
		for a, n := range seen {
			require.Equal(t, 1, n, a)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
