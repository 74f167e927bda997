package resolvers

import (
	"fmt"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// Error codes, in the errors' extensions.code.
const (
	// CodeBadUserInput: an argument is out of range, or a cursor is not
	// one this list gave out.
	CodeBadUserInput = "BAD_USER_INPUT"
	// CodeUnavailable: the collection has no good snapshot yet.
	CodeUnavailable = "SNAPSHOT_UNAVAILABLE"
)

func badInput(format string, args ...any) error {
	return &gqlerror.Error{
		Message:    fmt.Sprintf(format, args...),
		Extensions: map[string]any{"code": CodeBadUserInput},
	}
}

func unavailable(c catalogue.Collection) error {
	return &gqlerror.Error{
		Message:    fmt.Sprintf("the %s collection has not been loaded from the upstream yet; try again shortly", c),
		Extensions: map[string]any{"code": CodeUnavailable},
	}
}
