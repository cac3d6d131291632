package smb2

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
)

// aesCMAC computes AES-CMAC (RFC 4493) of msg under a 16-byte key. The
// standard library and golang.org/x/crypto have no CMAC, so it is written
// here on crypto/aes; cmac_test.go holds RFC 4493's vectors.
func aesCMAC(key, msg []byte) [16]byte {
	blk, err := aes.NewCipher(key)
	if err != nil {
		panic("smb2: AES-CMAC key: " + err.Error())
	}
	return cmacWith(blk, msg)
}

func cmacWith(blk cipher.Block, msg []byte) [16]byte {
	var l, k1, k2 [16]byte
	blk.Encrypt(l[:], l[:])
	shiftXor(&k1, &l)
	shiftXor(&k2, &k1)

	n := (len(msg) + 15) / 16
	complete := n > 0 && len(msg)%16 == 0
	if n == 0 {
		n = 1
	}
	var last [16]byte
	tail := msg[(n-1)*16:]
	if complete {
		subtle.XORBytes(last[:], tail, k1[:])
	} else {
		copy(last[:], tail)
		last[len(tail)] = 0x80
		subtle.XORBytes(last[:], last[:], k2[:])
	}
	var x [16]byte
	for i := 0; i < n-1; i++ {
		subtle.XORBytes(x[:], x[:], msg[16*i:16*i+16])
		blk.Encrypt(x[:], x[:])
	}
	subtle.XORBytes(x[:], x[:], last[:])
	blk.Encrypt(x[:], x[:])
	return x
}

// shiftXor sets dst to src shifted left one bit, xored with Rb (0x87) when
// the top bit of src was set (RFC 4493 2.3).
func shiftXor(dst, src *[16]byte) {
	var carry byte
	for i := 15; i >= 0; i-- {
		b := src[i]
		dst[i] = b<<1 | carry
		carry = b >> 7
	}
	if carry != 0 {
		dst[15] ^= 0x87
	}
}
