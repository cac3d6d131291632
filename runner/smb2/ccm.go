package smb2

import (
	"crypto/cipher"
	"crypto/subtle"
	"errors"
)

// ccm is AES-CCM (NIST SP 800-38C, RFC 3610) with a 16-byte tag, as SMB 3
// uses it with an 11-byte nonce. The standard library has GCM but no CCM
// and no well-kept module on the module proxy provides it, so it is written
// here on crypto/aes; it implements cipher.AEAD.
type ccm struct {
	blk      cipher.Block
	nonceLen int
}

const ccmTagSize = 16

func newCCM(blk cipher.Block, nonceLen int) (cipher.AEAD, error) {
	if blk.BlockSize() != 16 || nonceLen < 7 || nonceLen > 13 {
		return nil, errors.New("smb2: bad CCM parameters")
	}
	return &ccm{blk: blk, nonceLen: nonceLen}, nil
}

func (c *ccm) NonceSize() int { return c.nonceLen }
func (c *ccm) Overhead() int  { return ccmTagSize }

// maxLen is the largest payload the length field of size 15-nonceLen holds.
func (c *ccm) maxLen() uint64 {
	q := 15 - c.nonceLen
	if q >= 8 {
		return 1<<63 - 1
	}
	return 1<<(8*q) - 1
}

// mac computes the CBC-MAC of (B0, encoded aad, plaintext).
func (c *ccm) mac(nonce, plaintext, aad []byte) [16]byte {
	q := 15 - c.nonceLen
	var b0 [16]byte
	b0[0] = byte((ccmTagSize-2)/2)<<3 | byte(q-1)
	if len(aad) > 0 {
		b0[0] |= 0x40
	}
	copy(b0[1:], nonce)
	n := uint64(len(plaintext))
	for i := 15; i > c.nonceLen; i-- {
		b0[i] = byte(n)
		n >>= 8
	}
	var x [16]byte
	c.blk.Encrypt(x[:], b0[:])
	var blk [16]byte
	feed := func(data []byte) { // CBC over data, zero-padded to blocks
		for len(data) > 0 {
			k := copy(blk[:], data)
			clear(blk[k:])
			data = data[k:]
			subtle.XORBytes(x[:], x[:], blk[:])
			c.blk.Encrypt(x[:], x[:])
		}
	}
	if len(aad) > 0 {
		var hdr []byte
		switch {
		case len(aad) < 0xFF00:
			hdr = []byte{byte(len(aad) >> 8), byte(len(aad))}
		case uint64(len(aad)) <= 0xFFFFFFFF:
			hdr = []byte{0xFF, 0xFE, byte(len(aad) >> 24), byte(len(aad) >> 16), byte(len(aad) >> 8), byte(len(aad))}
		default:
			panic("smb2: CCM additional data too long")
		}
		feed(append(hdr, aad...))
	}
	feed(plaintext)
	return x
}

// ctr xors data with the CTR keystream starting at counter 1; the block at
// counter 0 (which encrypts the tag) is returned.
func (c *ccm) ctr(nonce, dst, src []byte) (s0 [16]byte) {
	q := 15 - c.nonceLen
	var a [16]byte
	a[0] = byte(q - 1)
	copy(a[1:], nonce)
	c.blk.Encrypt(s0[:], a[:])
	var ks [16]byte
	ctr := uint64(1)
	for off := 0; off < len(src); off += 16 {
		for i, v := 15, ctr; i > c.nonceLen; i-- {
			a[i] = byte(v)
			v >>= 8
		}
		c.blk.Encrypt(ks[:], a[:])
		end := min(off+16, len(src))
		subtle.XORBytes(dst[off:end], src[off:end], ks[:end-off])
		ctr++
	}
	return s0
}

func (c *ccm) Seal(dst, nonce, plaintext, aad []byte) []byte {
	if len(nonce) != c.nonceLen || uint64(len(plaintext)) > c.maxLen() {
		panic("smb2: CCM nonce or plaintext length")
	}
	tag := c.mac(nonce, plaintext, aad)
	ret, out := sliceForAppend(dst, len(plaintext)+ccmTagSize)
	s0 := c.ctr(nonce, out[:len(plaintext)], plaintext)
	subtle.XORBytes(out[len(plaintext):], tag[:], s0[:])
	return ret
}

var errOpen = errors.New("smb2: message authentication failed")

func (c *ccm) Open(dst, nonce, ciphertext, aad []byte) ([]byte, error) {
	if len(nonce) != c.nonceLen || len(ciphertext) < ccmTagSize {
		return nil, errOpen
	}
	n := len(ciphertext) - ccmTagSize
	if uint64(n) > c.maxLen() {
		return nil, errOpen
	}
	ret, out := sliceForAppend(dst, n)
	s0 := c.ctr(nonce, out, ciphertext[:n])
	tag := c.mac(nonce, out, aad)
	subtle.XORBytes(tag[:], tag[:], s0[:])
	if subtle.ConstantTimeCompare(tag[:], ciphertext[n:]) != 1 {
		clear(out)
		return nil, errOpen
	}
	return ret, nil
}

// sliceForAppend extends in by n bytes, returning the whole slice and the
// new tail.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	return head, head[len(in):]
}
