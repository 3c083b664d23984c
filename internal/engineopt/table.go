package engineopt

import (
	"fmt"

	"rumbench/internal/model"
)

// Option declares one engine setting once: its key, default and help (as
// `rumbench engines -v` lists them) and how a value is parsed and checked,
// storing the result where the constructor was told to.
type Option struct {
	Key, Default, Help string
	set                func(raw string) error
}

// Table is a driver's options in the order they are listed and parsed.
// Drivers build it over the struct that receives the values, so a key is
// declared with its type once:
//
//	func table(s *settings) engineopt.Table {
//		return engineopt.Table{engineopt.Bool(&s.sync, "sync", "false", "fsync at commit")}
//	}
type Table []Option

// Options lists the table as Driver.Options does.
func (t Table) Options() []model.Option {
	out := make([]model.Option, len(t))
	for i, o := range t {
		out[i] = model.Option{Key: o.Key, Default: o.Default, Help: o.Help}
	}
	return out
}

// Defaults maps each key to its default.
func (t Table) Defaults() map[string]string {
	out := make(map[string]string, len(t))
	for _, o := range t {
		out[o.Key] = o.Default
	}
	return out
}

// Parse sets every option, in table order, from opts or its default; the
// first bad value is the error. Keys the table lacks are not its to
// judge (engine.CheckConfig refuses them).
func (t Table) Parse(opts map[string]string) error {
	for _, o := range t {
		raw, ok := opts[o.Key]
		if !ok {
			raw = o.Default
		}
		if err := o.set(raw); err != nil {
			return err
		}
	}
	return nil
}

// Size is a byte size (ParseSize).
func Size(p *int64, key, def, help string) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) (err error) {
		*p, err = ParseSize(key, raw)
		return err
	}}
}

// SizeIn is a byte size in [min, max]; outside it the error says want
// ("a size from 64KB to 3GB").
func SizeIn(p *int64, key, def, help string, min, max int64, want string) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) (err error) {
		if *p, err = ParseSize(key, raw); err != nil {
			return err
		}
		if *p < min || *p > max {
			return fmt.Errorf("engine option %s=%q: want %s", key, raw, want)
		}
		return nil
	}}
}

// Bool is true or false (ParseBool).
func Bool(p *bool, key, def, help string) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) (err error) {
		*p, err = ParseBool(key, raw)
		return err
	}}
}

// Int is an integer in [min, max].
func Int(p *int, key, def, help string, min, max int64) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) error {
		n, err := ParseInt(key, raw, min, max)
		*p = int(n)
		return err
	}}
}

// Float is a number in [min, max].
func Float(p *float64, key, def, help string, min, max float64) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) (err error) {
		*p, err = ParseFloat(key, raw, min, max)
		return err
	}}
}

// Choice is one of choices, stored in lower case.
func Choice(p *string, key, def, help string, choices ...string) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) (err error) {
		*p, err = ParseChoice(key, raw, choices...)
		return err
	}}
}

// Set parses raw into the option's destination.
func (o Option) Set(raw string) error { return o.set(raw) }

// Text is a value rumbench passes on as given (to a server, which checks
// it); an empty one usually means "the server's setting".
func Text(p *string, key, def, help string) Option {
	return Option{Key: key, Default: def, Help: help, set: func(raw string) error {
		*p = raw
		return nil
	}}
}

// Func is an option of a kind of its own: parse checks and stores raw
// (the given value or the default).
func Func(key, def, help string, parse func(raw string) error) Option {
	return Option{Key: key, Default: def, Help: help, set: parse}
}
