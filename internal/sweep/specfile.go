package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"rumbench/internal/workload"
)

// plain is Spec without its JSON methods.
type plain Spec

// MarshalJSON writes sweep.json: the workload, its axes and the shared
// settings; or, for a workload that lays its file out flat
// (workload.SweepRecorder: the insert benchmark), its keys in its order.
func (s Spec) MarshalJSON() ([]byte, error) {
	rec, ok := s.sweeper().(workload.SweepRecorder)
	if !ok {
		return json.Marshal(plain(s))
	}
	var b bytes.Buffer
	put := func(key string, v any) error {
		if b.Len() > 0 {
			b.WriteByte(',')
		} else {
			b.WriteByte('{')
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("sweep.json %s: %w", key, err)
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(raw)
		return nil
	}
	if err := put("engines", s.Engines); err != nil {
		return nil, err
	}
	shared := map[string]any{}
	for k, v := range s.Shared {
		shared[k] = v
	}
	for _, k := range rec.SweepFileKeys() {
		var v any
		if k.Axis != "" {
			if a := s.axis(k.Axis); a != nil {
				v = a.Values
			}
		} else {
			v = shared[k.Shared]
			delete(shared, k.Shared)
		}
		if err := put(k.Key, v); err != nil {
			return nil, err
		}
	}
	if len(shared) > 0 {
		if err := put("shared", shared); err != nil {
			return nil, err
		}
	}
	if s.Repeat != 0 {
		if err := put("repeat", s.Repeat); err != nil {
			return nil, err
		}
	}
	if len(s.Variants) > 0 {
		if err := put("variants", s.Variants); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads sweep.json as MarshalJSON writes it: a file without
// "workload" is laid out flat by the workload that records its sweeps so
// (workload.FlatSweeper).
func (s *Spec) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	if _, named := keys["workload"]; named {
		return json.Unmarshal(data, (*plain)(s))
	}
	name := workload.FlatSweeper()
	sw, err := workload.SweeperOf(name)
	if name == "" || err != nil {
		return errors.New("it names no workload, and no workload records its sweeps without one")
	}
	rec := sw.(workload.SweepRecorder)
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.Workload = name
	if p.Shared == nil {
		p.Shared = map[string]any{}
	}
	prefix := map[string]string{}
	for _, a := range sw.SweepAxes() {
		prefix[a.Name] = a.Prefix
	}
	for _, k := range rec.SweepFileKeys() {
		raw, ok := keys[k.Key]
		if !ok {
			continue
		}
		if k.Axis != "" {
			a := Axis{Name: k.Axis, Prefix: prefix[k.Axis]}
			if err := json.Unmarshal(raw, &a.Values); err != nil {
				return fmt.Errorf("%s: %w", k.Key, err)
			}
			p.Axes = append(p.Axes, a)
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s: %w", k.Key, err)
		}
		p.Shared[k.Shared] = v
	}
	*s = Spec(p)
	return nil
}
