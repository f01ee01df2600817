package server

import (
	"context"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Every stage of the limits answers to the request's deadline: a request
// whose time is up gets TIMEOUT before parsing, and the walks stop.
func TestLimitsStopAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l := &limits{cache: newDocCache(1 << 20)}
	err := l.MutateOperationParameters(ctx, &graphql.RawParams{Query: "{ __typename }"})
	if err == nil || err.Extensions["code"] != "TIMEOUT" {
		t.Fatalf("want TIMEOUT, got %v", err)
	}
	doc, perr := parser.ParseQuery(&ast.Source{Input: "{" + strings.Repeat(" __typename", 5000) + "}"})
	if perr != nil {
		t.Fatal(perr)
	}
	if work := mergeWork(ctx, doc, 1<<40); work <= 1<<40 {
		t.Fatalf("the merge estimate ran on after the deadline (%d units)", work)
	}
	if err := newShapeWalk(ctx, doc).check(); err == nil || err.Extensions["code"] != "TIMEOUT" {
		t.Fatalf("want TIMEOUT from the shape walk, got %v", err)
	}
}
