package pictures

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// A placeholder is a 96 × 96 SVG made here, from the kind and the
// record's name alone: a tinted tile (darker in a dark colour scheme), the kind's mark (a gem, horns, a
// crown, a chest) faint behind the name's initial. It holds no script, no
// link and no text from the catalogue but one letter or digit, and is
// served with a Content-Security-Policy that would refuse anything else.
// Its ETag is its bytes' hash, the same on every replica; it is cached
// only with revalidation (no-cache), so the real picture replaces it as
// soon as the gateway has one.

type placeholderStyle struct {
	tile, mark, letter, label string
	// dark are tile, mark and letter in a dark colour scheme: a browser
	// matches an <img>'s SVG against the scheme of the page that shows it
	// (its CSS color-scheme), so a page's dark theme darkens the tile too.
	dark [3]string
	// path is the kind's mark, drawn on the 96 × 96 tile.
	path string
}

var placeholderStyles = [catalogue.NumPictureKinds]placeholderStyle{
	catalogue.PictureItem: {tile: "#e6eef7", mark: "#c3d3e6", letter: "#2c4a6b", label: "item", dark: [3]string{"#1e2a38", "#2f4258", "#c3d6ec"},
		path: "M48 10 78 34 48 86 18 34Z"},
	catalogue.PictureMonster: {tile: "#f4e6e6", mark: "#e2c2c2", letter: "#6b2c2c", label: "monster", dark: [3]string{"#382222", "#553232", "#f0c8c8"},
		path: "M14 12c10 8 16 18 18 30h32c2-12 8-22 18-30-2 20-6 34-14 44-6 14-16 24-20 28-4-4-14-14-20-28-8-10-12-24-14-44Z"},
	catalogue.PictureWorldBoss: {tile: "#f6eed8", mark: "#e5d3a3", letter: "#5e4710", label: "world boss", dark: [3]string{"#352d18", "#54472a", "#eedca8"},
		path: "M12 74 16 26 34 46 48 16 62 46 80 26 84 74Z"},
	catalogue.PictureWorldBossLoot: {tile: "#e8f2e4", mark: "#c6dcbd", letter: "#2f5223", label: "loot", dark: [3]string{"#22331e", "#34502d", "#c8e6bc"},
		path: "M14 40h68v40H14ZM18 22h60l4 14H14ZM42 46h12v12H42Z"},
}

// placeholder is the SVG of a record of kind k named name.
func placeholder(k catalogue.PictureKind, name string) []byte {
	st := placeholderStyles[k]
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">`)
	b.WriteString(`<style>@media (prefers-color-scheme:dark){.t{fill:` + st.dark[0] + `}.m{fill:` + st.dark[1] + `}.l{fill:` + st.dark[2] + `}}</style>`)
	b.WriteString(`<rect class="t" width="96" height="96" rx="10" fill="` + st.tile + `"/>`)
	b.WriteString(`<path class="m" d="` + st.path + `" fill="` + st.mark + `"/>`)
	b.WriteString(`<text class="l" x="48" y="62" text-anchor="middle" font-family="system-ui,sans-serif" font-size="40" font-weight="700" fill="` +
		st.letter + `">` + initial(name) + `</text>`)
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

// initial is name's first letter or digit, upper-cased: "?" when it has
// none. Only a letter or digit is ever written into the SVG.
func initial(name string) string {
	for _, r := range name {
		if r == utf8.RuneError {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return string(unicode.ToUpper(r))
		}
	}
	return "?"
}

// writePlaceholder answers with the placeholder of a record of kind k
// named name, with status.
func (s *Server) writePlaceholder(w http.ResponseWriter, r *http.Request, k catalogue.PictureKind, name string, status int) {
	body := placeholder(k, name)
	sum := sha256.Sum256(body)
	write(w, r, body, "image/svg+xml", `"p-`+hex.EncodeToString(sum[:16])+`"`, "no-cache", status)
}
