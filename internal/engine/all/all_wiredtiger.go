//go:build wiredtiger

package all

import _ "rumbench/internal/engine/kv/wiredtiger" // needs libwiredtiger-dev
