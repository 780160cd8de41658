package llm

import (
	"encoding/base64"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Images in a conversation (docs/llm.md, "Images"): a user message may
// carry images, given as options.images (attached to the prompt) or as
// image parts of a message's content, and vision_ocr sends one image with
// a transcription instruction. Each provider's wire format gets them as
// its own image blocks; a provider without the vision capability refuses
// the call before it is sent.

// image is one image of a message: its bytes and media type, or a URL the
// provider fetches itself.
type image struct {
	MediaType string
	Data      []byte
	URL       string
}

// imageTypes are the media types the providers accept.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// readImage reads an image given as bytes, a file path, an http(s) or data
// URL, or a dict {path | data | url, media_type?} (data: bytes or base64
// text). where names the argument in errors.
func readImage(th *vm.Thread, where string, v vm.Value) (image, error) {
	var img image
	var err error
	switch {
	case lib.IsBytes(v):
		img.Data = bytesOf(v)
	case isString(v):
		s := vm.ToDisplay(v)
		switch {
		case strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://"):
			img.URL = s
		case strings.HasPrefix(s, "data:"):
			if img.MediaType, img.Data, err = parseDataURL(s); err != nil {
				return image{}, vm.Throwf("%s: %s", where, err.Error())
			}
		default:
			if img.Data, err = readImageFile(th, where, s); err != nil {
				return image{}, err
			}
		}
	default:
		d, ok := v.AsDict()
		if !ok {
			return image{}, vm.Throwf("%s: an image is bytes, a path, a URL or a dict {path | data | url, media_type?}, got %s", where, v.Type())
		}
		field := func(k string) vm.Value {
			x, _ := d.Get(k)
			return x
		}
		path, data, url := field("path"), field("data"), field("url")
		if given := btoi(!isNil(path)) + btoi(!isNil(data)) + btoi(!isNil(url)); given != 1 {
			return image{}, vm.Throwf("%s: an image dict has exactly one of path, data and url", where)
		}
		switch {
		case !isNil(path):
			if img.Data, err = readImageFile(th, where, vm.ToDisplay(path)); err != nil {
				return image{}, err
			}
		case !isNil(url):
			img.URL = vm.ToDisplay(url)
		case lib.IsBytes(data):
			img.Data = bytesOf(data)
		default:
			if img.Data, err = base64.StdEncoding.DecodeString(vm.ToDisplay(data)); err != nil {
				return image{}, vm.Throwf("%s: image data is neither bytes nor base64 text", where)
			}
		}
		if mt := field("media_type"); !isNil(mt) {
			img.MediaType = vm.ToDisplay(mt)
		}
	}
	if img.URL != "" {
		return img, nil
	}
	if img.MediaType == "" {
		img.MediaType = http.DetectContentType(img.Data)
	}
	if !slices.Contains(imageTypes, img.MediaType) {
		return image{}, vm.Throwf("%s: not an image the providers take (PNG, JPEG, GIF or WebP), got %s", where, img.MediaType)
	}
	return img, nil
}

// readImageFile reads the image file at path (relative to the execution
// root, as read_file's paths are).
func readImageFile(th *vm.Thread, where, path string) ([]byte, error) {
	data, err := os.ReadFile(fs.ResolvePath(th, path))
	if err != nil {
		return nil, vm.Throwf("%s: cannot read image %s: %s", where, path, fs.OSErrorText(err))
	}
	return data, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readImages reads options.images: one image or a list of them.
func readImages(th *vm.Thread, fn string, v vm.Value) ([]image, error) {
	items := []vm.Value{v}
	if l, ok := v.AsList(); ok {
		items = l.Items()
	}
	out := make([]image, len(items))
	for i, it := range items {
		img, err := readImage(th, fn+": options.images["+strconv.Itoa(i)+"]", it)
		if err != nil {
			return nil, err
		}
		out[i] = img
	}
	return out, nil
}

// readContentParts reads a message content given as a list of parts,
// {type: "text", text} and {type: "image", …image fields}: the text parts
// joined by blank lines, and the images.
func readContentParts(th *vm.Thread, where string, l *vm.List) (string, []image, error) {
	var texts []string
	var images []image
	for i, p := range l.Items() {
		at := where + "[" + strconv.Itoa(i) + "]"
		if s, ok := p.AsString(); ok {
			texts = append(texts, s.Go())
			continue
		}
		d, ok := p.AsDict()
		if !ok {
			return "", nil, vm.Throwf("%s must be a string or a dict {type, …}, got %s", at, p.Type())
		}
		typ, _ := d.Get("type")
		switch vm.ToDisplay(typ) {
		case "text":
			t, _ := d.Get("text")
			texts = append(texts, vm.ToDisplay(t))
		case "image":
			img, err := readImage(th, at, vm.Of(d.Delete("type")))
			if err != nil {
				return "", nil, err
			}
			images = append(images, img)
		default:
			return "", nil, vm.Throwf("%s.type must be text or image, got %s", at, lib.Display(typ))
		}
	}
	return strings.Join(texts, "\n\n"), images, nil
}

// parseDataURL reads data:MEDIA;base64,DATA.
func parseDataURL(s string) (string, []byte, error) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return "", nil, vm.Throwf("a data URL must read data:MEDIA_TYPE;base64,DATA")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "", nil, vm.Throwf("the data URL's data is not base64")
	}
	return strings.TrimSuffix(meta, ";base64"), b, nil
}

// dataURL is the image as a data: URL (or its URL).
func (img image) dataURL() string {
	if img.URL != "" {
		return img.URL
	}
	return "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// openAIContent is a user turn's content with images: image_url parts,
// then the text.
func openAIContent(text string, images []image) []any {
	parts := make([]any, 0, len(images)+1)
	for _, img := range images {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": img.dataURL()}})
	}
	if text != "" {
		parts = append(parts, map[string]any{"type": "text", "text": text})
	}
	return parts
}

// anthropicImages are the messages API's image blocks.
func anthropicImages(images []image) []any {
	blocks := make([]any, len(images))
	for i, img := range images {
		src := map[string]any{"type": "url", "url": img.URL}
		if img.URL == "" {
			src = map[string]any{"type": "base64", "media_type": img.MediaType,
				"data": base64.StdEncoding.EncodeToString(img.Data)}
		}
		blocks[i] = map[string]any{"type": "image", "source": src}
	}
	return blocks
}

// imagesValue is how a message's images are recorded (llm_mock_calls,
// transcripts): their media type and size, or URL, not their bytes.
func imagesValue(images []image) vm.Value {
	out := make([]vm.Value, len(images))
	for i, img := range images {
		if img.URL != "" {
			out[i] = vm.Of(lib.DictOf("url", vm.Str(img.URL)))
		} else {
			out[i] = vm.Of(lib.DictOf("media_type", vm.Str(img.MediaType), "size", lib.IntOf(len(img.Data))))
		}
	}
	return vm.Of(vm.NewList(out))
}

func bytesOf(v vm.Value) []byte { return v.Object().(*lib.Bytes).Data() }

func isString(v vm.Value) bool {
	_, ok := v.AsString()
	return ok
}

func isNil(v vm.Value) bool { return !v.IsValid() || v.IsNil() }

// hasImages says whether any message of the call carries an image.
func (r *request) hasImages() bool {
	for _, m := range r.messages {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}
