package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// TestEncodePNGRoundTrip decodes encodePNG's output with image/png and compares pixels.
func TestEncodePNGRoundTrip(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 37, 23))
	for y := 0; y < 23; y++ {
		for x := 0; x < 37; x++ {
			img.Set(x, y, color.RGBA{R: uint8(7 * x), G: uint8(11 * y), B: uint8(x * y), A: 255})
		}
	}
	b, err := encodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 23; y++ {
		for x := 0; x < 37; x++ {
			r1, g1, b1, _ := got.At(x, y).RGBA()
			r2, g2, b2, _ := img.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got.At(x, y), img.At(x, y))
			}
		}
	}
	// A translucent image falls back to image/png (alpha kept).
	img.Set(0, 0, color.NRGBA{R: 1, A: 10})
	if b, err = encodePNG(img); err != nil {
		t.Fatal(err)
	}
	if got, err = png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, a := got.At(0, 0).RGBA(); a == 0xffff {
		t.Error("alpha lost in the fallback path")
	}
}
