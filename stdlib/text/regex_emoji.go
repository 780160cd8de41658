package text

import (
	"strconv"
	"strings"
	"sync"
)

// The emoji properties of Unicode's emoji-data.txt (UTS #51), which the
// regex crate reads as binary properties (`\p{Emoji}`,
// `\p{Extended_Pictographic}`) and Go's unicode package has no table
// of: emojiData (regex_emoji_data.go, generated from the data file) keyed
// by the property's loose name; emojiAliases maps the short names onto
// them.
//
//go:generate go run gen_emoji.go /usr/share/unicode/emoji/emoji-data.txt

var emojiAliases = map[string]string{
	"epres": "emojipresentation", "emod": "emojimodifier",
	"ebase": "emojimodifierbase", "ecomp": "emojicomponent",
	"extpict": "extendedpictographic",
}

var (
	emojiSetsOnce sync.Once
	emojiSets     map[string]runeSet
)

// emojiProperty is the set of an emoji property by loose name.
func emojiProperty(loose string) (runeSet, bool) {
	emojiSetsOnce.Do(func() {
		emojiSets = map[string]runeSet{}
		for name, data := range emojiData {
			emojiSets[name] = parseCodePointRanges(data)
		}
	})
	if full, ok := emojiAliases[loose]; ok {
		loose = full
	}
	set, ok := emojiSets[loose]
	return set, ok
}

// parseCodePointRanges reads "23 30..39 …" as a set.
func parseCodePointRanges(data string) runeSet {
	var set runeSet
	for _, item := range strings.Fields(data) {
		lo, hi, isRange := strings.Cut(item, "..")
		if !isRange {
			hi = lo
		}
		l, _ := strconv.ParseInt(lo, 16, 32)
		h, _ := strconv.ParseInt(hi, 16, 32)
		set = append(set, rune(l), rune(h))
	}
	return set.union(nil)
}
