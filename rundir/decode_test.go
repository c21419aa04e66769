package rundir

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// TestLongLinesAndOrder: a line longer than a block (several MiB of ICL values) is read
// whole, and records arrive in file order across blocks.
func TestLongLinesAndOrder(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	long := make([]float64, 300_000) // one line of several MiB: longer than a block
	for i := range long {
		long[i] = 1.25
	}
	var recs []*Record
	for i := 0; i < 20_000; i++ {
		v := float64(i)
		r := &Record{Segment: "s" + string(rune('a'+i%3)), Step: i % 7, Phase: PhaseMeasure,
			Status: StatusOK, TTFTMs: &v, OutputTokens: 2}
		if i == 10_000 {
			r.ICLMs = long
		}
		recs = append(recs, r)
	}
	if err := w.AppendRecords(recs); err != nil {
		t.Fatal(err)
	}
	w.Close()
	i := 0
	dmg, err := EachRecord(dir, func(r *Record) error {
		if *r.TTFTMs != float64(i) {
			t.Fatalf("record %d out of order: ttft %v", i, *r.TTFTMs)
		}
		if i == 10_000 && len(r.ICLMs) != len(long) {
			t.Errorf("long ICL line: %d values, want %d", len(r.ICLMs), len(long))
		}
		i++
		return nil
	})
	if err != nil || dmg.Any() || i != 20_000 {
		t.Fatalf("%d records, damage %+v, err %v", i, dmg, err)
	}
	if filepath.Base(dmg.File) != FileRecords {
		t.Errorf("damage file %q", dmg.File)
	}
}

// FuzzDecodeRecord checks the fast record decoder against encoding/json: whenever the
// fast path accepts a line, both give the same Record.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		`{"segment":"chat","step":3,"phase":"measure","status":"ok","ttft_ms":12.5,"itl_ms":null,"icl_ms":[1,2.5],"output_tokens":7}`,
		`{"segment":"a","extra":{"nested":[1,{"x":"y\"z"}]},"rate":2.5e-1,"sent_ns":1700000000000000000}`,
		`{"status":"error","error_class":"http_5xx","error":"bad \"gateway\"","e2e_ms":-0.001}`,
		`{"status":"error","error_class":"http_429","http_status":429,"retry_after_ms":1500}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.Equal(b, bytes.ToLower(b)) {
			return // encoding/json matches keys case-insensitively; records use exact lowercase keys
		}
		var fast, slow Record
		if newDecoder().scan(b, &fast) != nil || json.Unmarshal(b, &slow) != nil {
			return
		}
		if !reflect.DeepEqual(fast, slow) && !floatsOnlyDiffer(fast, slow) {
			t.Errorf("fast %+v\nslow %+v", fast, slow)
		}
	})
}

// floatsOnlyDiffer reports whether a and b differ only where encoding/json rejects what
// the fast path reads (an integer field written as a float), which fuzzing can produce.
func floatsOnlyDiffer(a, b Record) bool {
	a.Step, b.Step = 0, 0
	a.Concurrency, b.Concurrency = 0, 0
	return reflect.DeepEqual(a, b)
}

func TestFastFloatMatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "12.5", "0.1", "123.456789", "-0.000123", "999999999999999",
		"3.14159265358979", "1.7976931348623157e308", "1e-5", "12345678901234567890", "5."} {
		want, _ := strconv.ParseFloat(s, 64)
		got, ok := fastFloat([]byte(s))
		if ok && got != want {
			t.Errorf("fastFloat(%q) = %v, want %v", s, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100000; i++ {
		x := rng.Float64() * math.Pow(10, float64(rng.IntN(8)))
		s := strconv.FormatFloat(x, 'f', -1, 64)
		got, ok := fastFloat([]byte(s))
		if ok && got != x {
			t.Fatalf("fastFloat(%q) = %v, want %v", s, got, x)
		}
	}
}

// TestDecoderReadsEveryField: a record with every field set (non-zero, distinct values
// found by reflection) reads back through the fast decoder exactly as written, so a
// field added to Record without its decoder case (waited_ms once was) fails here.
func TestDecoderReadsEveryField(t *testing.T) {
	var r Record
	v := reflect.ValueOf(&r).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("s" + strconv.Itoa(i))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(100 + i))
		case reflect.Float64:
			f.SetFloat(0.5 + float64(i))
		case reflect.Pointer: // *float64 latencies
			x := 1.25 + float64(i)
			f.Set(reflect.ValueOf(&x))
		case reflect.Slice: // []float64
			f.Set(reflect.ValueOf([]float64{float64(i), 2.5}))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	var got Record
	if err := newDecoder().scan(b, &got); err != nil {
		t.Fatalf("scan: %v", err)
	}
	gv := reflect.ValueOf(got)
	for i := range v.NumField() {
		if !reflect.DeepEqual(gv.Field(i).Interface(), v.Field(i).Interface()) {
			t.Errorf("field %s (%s): decoded %v, wrote %v", v.Type().Field(i).Name, v.Type().Field(i).Tag.Get("json"),
				gv.Field(i).Interface(), v.Field(i).Interface())
		}
	}
}
