package tui

import "math"

// OKLCH and OKHSL colours of pi's theme files, converted to sRGB with
// Björn Ottosson's formulas (the OKLab matrices; OKHSL's gamut cusp and
// toe from his okhsl reference).

// oklabToLinear is OKLab to linear sRGB.
func oklabToLinear(L, a, b float64) (float64, float64, float64) {
	l := cube(L + 0.3963377774*a + 0.2158037573*b)
	m := cube(L - 0.1055613458*a - 0.0638541728*b)
	s := cube(L - 0.0894841775*a - 1.2914855480*b)
	return 4.0767416621*l - 3.3077115913*m + 0.2309699292*s,
		-1.2684380046*l + 2.6097574011*m - 0.3413193965*s,
		-0.0041960863*l - 0.7034186147*m + 1.7076147010*s
}

func cube(x float64) float64 { return x * x * x }

// toSRGB8 applies the sRGB transfer function and clamps to 0..255.
func toSRGB8(r, g, b float64) [3]uint8 {
	f := func(x float64) uint8 {
		if x >= 0.0031308 {
			x = 1.055*math.Pow(x, 1/2.4) - 0.055
		} else {
			x = 12.92 * x
		}
		return uint8(math.Round(math.Max(0, math.Min(1, x)) * 255))
	}
	return [3]uint8{f(r), f(g), f(b)}
}

// oklch converts lightness (0..1), chroma and hue (degrees); a colour
// outside the sRGB gamut keeps its lightness and hue with the most
// chroma that fits.
func oklch(L, C, hDeg float64) [3]uint8 {
	h := hDeg * math.Pi / 180
	at := func(c float64) (float64, float64, float64) { return oklabToLinear(L, c*math.Cos(h), c*math.Sin(h)) }
	if r, g, b := at(C); inGamut(r, g, b) {
		return toSRGB8(r, g, b)
	}
	lo, hi := 0.0, C
	for range 40 {
		mid := (lo + hi) / 2
		if r, g, b := at(mid); inGamut(r, g, b) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return toSRGB8(at(lo))
}

// okhsl converts hue (degrees), saturation and lightness (0..1).
func okhsl(hDeg, s, l float64) [3]uint8 {
	if l >= 1 {
		return [3]uint8{255, 255, 255}
	}
	if l <= 0 {
		return [3]uint8{0, 0, 0}
	}
	h := hDeg / 360
	a, b := math.Cos(2*math.Pi*h), math.Sin(2*math.Pi*h)
	L := toeInv(l)
	c0, cMid, cMax := chromas(L, a, b)
	const mid, midInv = 0.8, 1.25
	var C float64
	if s < mid {
		t := midInv * s
		k1 := mid * c0
		k2 := 1 - k1/cMid
		C = t * k1 / (1 - k2*t)
	} else {
		t := (s - mid) / (1 - mid)
		k0 := cMid
		k1 := (1 - mid) * cMid * cMid * midInv * midInv / c0
		k2 := 1 - k1/(cMax-cMid)
		C = k0 + t*k1/(1-k2*t)
	}
	return toSRGB8(oklabToLinear(L, C*a, C*b))
}

func toeInv(x float64) float64 {
	const k1, k2 = 0.206, 0.03
	const k3 = (1 + k1) / (1 + k2)
	return (x*x + k1*x) / (k3 * (x + k2))
}

// chromas are OKHSL's C_0, C_mid and C_max at lightness L and hue (a, b).
func chromas(L, a, b float64) (c0, cMid, cMax float64) {
	cuspL, cuspC := findCusp(a, b)
	cMax = gamutIntersection(a, b, L, 1, L, cuspL, cuspC)
	sMax, tMax := cuspC/cuspL, cuspC/(1-cuspL)
	k := cMax / math.Min(L*sMax, (1-L)*tMax)
	sMid := 0.11516993 + 1/(7.44778970+4.15901240*b+a*(-2.19557347+1.75198401*b+a*(-2.13704948-10.02301043*b+a*(-4.24894561+5.38770819*b+4.69891013*a))))
	tMid := 0.11239642 + 1/(1.61320320-0.68124379*b+a*(0.40370612+0.90148123*b+a*(-0.27087943+0.61223990*b+a*(0.00299215-0.45399568*b-0.14661872*a))))
	ca, cb := L*sMid, (1-L)*tMid
	cMid = 0.9 * k * math.Sqrt(math.Sqrt(1/(1/(ca*ca*ca*ca)+1/(cb*cb*cb*cb))))
	ca, cb = L*0.4, (1-L)*0.8
	c0 = math.Sqrt(1 / (1/(ca*ca) + 1/(cb*cb)))
	return c0, cMid, cMax
}

// lms coefficients of a hue direction.
func lmsK(a, b float64) (kl, km, ks float64) {
	return 0.3963377774*a + 0.2158037573*b, -0.1055613458*a - 0.0638541728*b, -0.0894841775*a - 1.2914855480*b
}

func maxSaturation(a, b float64) float64 {
	var k0, k1, k2, k3, k4, wl, wm, ws float64
	switch {
	case -1.88170328*a-0.80936493*b > 1:
		k0, k1, k2, k3, k4 = 1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245
		wl, wm, ws = 4.0767416621, -3.3077115913, 0.2309699292
	case 1.81444104*a-1.19445276*b > 1:
		k0, k1, k2, k3, k4 = 0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204
		wl, wm, ws = -1.2684380046, 2.6097574011, -0.3413193965
	default:
		k0, k1, k2, k3, k4 = 1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167
		wl, wm, ws = -0.0041960863, -0.7034186147, 1.7076147010
	}
	S := k0 + k1*a + k2*b + k3*a*a + k4*a*b
	kl, km, ks := lmsK(a, b)
	l_, m_, s_ := 1+S*kl, 1+S*km, 1+S*ks
	l, m, s := cube(l_), cube(m_), cube(s_)
	ldS, mdS, sdS := 3*kl*l_*l_, 3*km*m_*m_, 3*ks*s_*s_
	ldS2, mdS2, sdS2 := 6*kl*kl*l_, 6*km*km*m_, 6*ks*ks*s_
	f := wl*l + wm*m + ws*s
	f1 := wl*ldS + wm*mdS + ws*sdS
	f2 := wl*ldS2 + wm*mdS2 + ws*sdS2
	return S - f*f1/(f1*f1-0.5*f*f2)
}

func findCusp(a, b float64) (L, C float64) {
	S := maxSaturation(a, b)
	r, g, bl := oklabToLinear(1, S*a, S*b)
	L = math.Cbrt(1 / math.Max(math.Max(r, g), bl))
	return L, L * S
}

func gamutIntersection(a, b, L1, C1, L0, cuspL, cuspC float64) float64 {
	if (L1-L0)*cuspC-(cuspL-L0)*C1 <= 0 {
		return cuspC * L0 / (C1*cuspL + cuspC*(L0-L1))
	}
	t := cuspC * (L0 - 1) / (C1*(cuspL-1) + cuspC*(L0-L1))
	dL, dC := L1-L0, C1
	kl, km, ks := lmsK(a, b)
	ldt, mdt, sdt := dL+dC*kl, dL+dC*km, dL+dC*ks
	L := L0*(1-t) + t*L1
	C := t * C1
	l_, m_, s_ := L+C*kl, L+C*km, L+C*ks
	l, m, s := cube(l_), cube(m_), cube(s_)
	ld, md, sd := 3*ldt*l_*l_, 3*mdt*m_*m_, 3*sdt*s_*s_
	ld2, md2, sd2 := 6*ldt*ldt*l_, 6*mdt*mdt*m_, 6*sdt*sdt*s_
	step := func(w0, w1, w2 float64) float64 {
		v := w0*l + w1*m + w2*s - 1
		v1 := w0*ld + w1*md + w2*sd
		v2 := w0*ld2 + w1*md2 + w2*sd2
		u := v1 / (v1*v1 - 0.5*v*v2)
		if u < 0 {
			return math.MaxFloat64
		}
		return -v * u
	}
	tr := step(4.0767416621, -3.3077115913, 0.2309699292)
	tg := step(-1.2684380046, 2.6097574011, -0.3413193965)
	tb := step(-0.0041960863, -0.7034186147, 1.7076147010)
	return t + math.Min(tr, math.Min(tg, tb))
}

func inGamut(r, g, b float64) bool {
	const e = 1e-6
	return r >= -e && r <= 1+e && g >= -e && g <= 1+e && b >= -e && b <= 1+e
}
