// Package all links every engine compiled into this build into the registry.
package all

import (
	_ "rumbench/internal/engine/null"
)
