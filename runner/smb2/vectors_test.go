package smb2

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"strings"
	"testing"
)

// The published test vectors, each named with its source. Long values are
// split over lines as in their source; unhex joins them.

func unhex(t testing.TB, parts ...string) []byte {
	t.Helper()
	s := strings.Join(parts, "")
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex in a test vector: %v", err)
	}
	return b
}

func eqHex(t *testing.T, what string, got []byte, want ...string) {
	t.Helper()
	if w := unhex(t, want...); !bytes.Equal(got, w) {
		t.Errorf("%s:\n got %X\nwant %X", what, got, w)
	}
}

// RFC 4493 section 4: AES-CMAC examples.
func TestAESCMACRFC4493(t *testing.T) {
	key := unhex(t, "2b7e151628aed2a6abf7158809cf4f3c")
	msg := unhex(t, "6bc1bee22e409f96e93d7e117393172a", "ae2d8a571e03ac9c9eb76fac45af8e51",
		"30c81c46a35ce411e5fbc1191a0a52ef", "f69f2445df4f9b17ad2b417be66c3710")
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "bb1d6929e95937287fa37d129b756746"},
		{16, "070a16b46b4d4144f79bdd9dd04a287c"},
		{40, "dfa66747de9ae63030ca32611497c827"},
		{64, "51f0bebf7e3b9d92fc49741779363cfe"},
	} {
		got := aesCMAC(key, msg[:tc.n])
		eqHex(t, "AES-CMAC of the first bytes of the RFC 4493 message", got[:], tc.want)
	}
}

// [MS-NLMP] 4.2.4: NTLMv2 authentication examples (4.2.4.1.1 NTOWFv2,
// 4.2.4.2.1 LMv2 response, 4.2.4.2.2 NTLMv2 response, 4.2.4.1.2 session base
// key, 4.2.4.2.3 encrypted random session key).
func TestNTLMv2MSNLMP424(t *testing.T) {
	respKey := ntowfv2("User", "Password", "Domain")
	eqHex(t, "NTOWFv2", respKey, "0c868a403bfd7a93a3001ef22ef02e3f")
	var sc, cc [8]byte
	copy(sc[:], unhex(t, "0123456789abcdef"))
	copy(cc[:], unhex(t, "aaaaaaaaaaaaaaaa"))
	targetInfo := unhex(t, "02000c0044006f006d00610069006e00", "01000c00530065007200760065007200", "00000000")
	nt, lm, base := ntlmV2Response(respKey, sc, cc, 0, targetInfo)
	eqHex(t, "LMv2 response", lm, "86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa")
	eqHex(t, "NTProofStr", nt[:16], "68cd0ab851e51c96aabc927bebef6a1c")
	eqHex(t, "NTLMv2 response temp", nt[16:], "0101000000000000", "0000000000000000", "aaaaaaaaaaaaaaaa", "00000000",
		"02000c0044006f006d00610069006e00", "01000c00530065007200760065007200", "00000000", "00000000")
	eqHex(t, "session base key", base, "8de40ccadbc14a82f15cb0ad0de95ca3")
	eqHex(t, "encrypted random session key", rc4Once(base, bytes.Repeat([]byte{0x55}, 16)), "c5dad2544fc9799094ce1ce90bc9d03e")
}

// The SMB 3.1.1 session of Microsoft's Open Specifications blog post "SMB 2
// and SMB 3 security in Windows 10: the anatomy of signing and cryptographic
// keys" (appendix "Key derivation example for SMB 3.1.1 multichannel",
// master session, and "NTLMv2 SessionKey calculation example"): the
// NEGOTIATE and SESSION_SETUP packets, the pre-auth integrity hashes after
// each, the NTLM keys, MIC and mechListMIC, the SMB keys and the signature
// of the final SESSION_SETUP response.
var (
	blogNegReq = []string{
		"FE534D4240000100000000000000800000000000000000000100000000000000FFFE000000000000",
		"00000000000000000000000000000000000000000000000024000500000000003F000000ECD86F32",
		"6276024F9F7752B89BB33F3A70000000020000000202100200030203110300000100260000000000",
		"010020000100FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF0000",
		"0200060000000000020002000100"}
	blogNegResp = []string{
		"FE534D4240000100000000000000010001000000000000000100000000000000FFFE000000000000",
		"000000000000000000000000000000000000000000000000410001001103020039CBCAF329714942",
		"BDCE5D60F09AB3FB2F000000000080000000800000008000D8DAE5ADCBAED00109094AB095AED001",
		"80004001C00100006082013C06062B0601050502A08201303082012CA01A3018060A2B0601040182",
		"3702021E060A2B06010401823702020AA282010C048201084E45474F455854530100000000000000",
		"60000000700000007C7CC0FD06D6362D02DDE1CF343BFE292900F49750B4AA97934D9C4296B26E51",
		"FD370471B235E15A50DAE15BD5489C87000000000000000060000000010000000000000000000000",
		"5C33530DEAF90D4DB2EC4AE3786EC3084E45474F4558545303000000010000004000000098000000",
		"7C7CC0FD06D6362D02DDE1CF343BFE295C33530DEAF90D4DB2EC4AE3786EC3084000000058000000",
		"3056A05430523027802530233121301F06035504031318546F6B656E205369676E696E6720507562",
		"6C6963204B65793027802530233121301F06035504031318546F6B656E205369676E696E67205075",
		"626C6963204B6579010026000000000001002000010060A3C3B95C3C7CCD51EC536648D9B3AC74C4",
		"83CA5B65385A251117BEB30712E50000020004000000000001000200"}
	blogSSReq1 = []string{
		"FE534D4240000100000000000100800000000000000000000200000000000000FFFE000000000000",
		"00000000000000000000000000000000000000000000000019000001010000000000000058004A00",
		"0000000000000000604806062B0601050502A03E303CA00E300C060A2B06010401823702020AA22A",
		"04284E544C4D5353500001000000978208E200000000000000000000000000000000060380250000",
		"000F"}
	blogSSResp1 = []string{
		"FE534D4240000100160000C00100010001000000000000000200000000000000FFFE000000000000",
		"190000000010000000000000000000000000000000000000090000004800B300A181B03081ADA003",
		"0A0101A10C060A2B06010401823702020AA281970481944E544C4D53535000020000000C000C0038",
		"00000015828AE20D1D8BA31179D008000000000000000050005000440000000A0092270000000F53",
		"005500540033003100310002000C0053005500540033003100310001000C00530055005400330031",
		"00310004000C0053005500540033003100310003000C0053005500540033003100310007000800A1",
		"A1F5ADCBAED00100000000"}
	blogSSReq2 = []string{
		"FE534D4240000100000000000100800000000000000000000300000000000000FFFE000000000000",
		"1900000000100000000000000000000000000000000000001900000101000000000000005800CF01",
		"0000000000000000A18201CB308201C7A0030A0101A28201AA048201A64E544C4D53535000030000",
		"001800180090000000EE00EE00A80000000C000C00580000001A001A0064000000120012007E0000",
		"001000100096010000158288E2060380250000000FECAC77A5F385A8BF9C38C706EEEDDCD3530055",
		"005400330031003100610064006D0069006E006900730074007200610074006F0072004400520049",
		"0056004500520033003100310000000000000000000000000000000000000000000000000063078E",
		"B639FE03E20A231C3AE3BF23080101000000000000A1A1F5ADCBAED001BC4AD05F223CC90F000000",
		"0002000C0053005500540033003100310001000C0053005500540033003100310004000C00530055",
		"00540033003100310003000C0053005500540033003100310007000800A1A1F5ADCBAED001060004",
		"00020000000800300030000000000000000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B",
		"8E0EBA5A6DFD9D07A31D11B548F8C9D0CC0A00100000000000000000000000000000000000090016",
		"0063006900660073002F005300550054003300310031000000000000000000000000003B9BDFF38F",
		"5EE8F9663F11A0F4C03A78A31204100100000063775A9A5FD97F0600000000"}
	blogSSResp2 = []string{
		"FE534D4240000100000000000100800009000000000000000300000000000000FFFE000000000000",
		"1900000000100000EBE146DA120BA25FC3376A49DFE31BC10900000048001D00A11B3019A0030A01",
		"00A3120410010000003B453CDC3524164200000000"}
)

func TestSMB311SessionMicrosoftBlog(t *testing.T) {
	negReq, negResp := unhex(t, blogNegReq...), unhex(t, blogNegResp...)
	ssReq1, ssResp1 := unhex(t, blogSSReq1...), unhex(t, blogSSResp1...)
	ssReq2, ssResp2 := unhex(t, blogSSReq2...), unhex(t, blogSSResp2...)

	// The NEGOTIATE request, rebuilt from its fields, is byte for byte the
	// packet; the response decodes to what the blog lists.
	var guid [16]byte
	copy(guid[:], unhex(t, "ECD86F326276024F9F7752B89BB33F3A"))
	req := &NegotiateRequest{
		SecurityMode: 0, Capabilities: 0x3F, ClientGUID: guid,
		Dialects: []Dialect{Dialect202, Dialect210, Dialect300, Dialect302, Dialect311},
		Contexts: []NegotiateContext{
			PreauthContext(unhex(t, "FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF"), HashSHA512),
			EncryptionContext(CipherAES128GCM, CipherAES128CCM),
		},
	}
	h := Header{CreditCharge: 1, Command: CmdNegotiate, Credits: 0x80, MessageID: 1, ProcessID: 0xFEFF}
	if got := req.AppendBody(h.Append(nil)); !bytes.Equal(got, negReq) {
		t.Errorf("NEGOTIATE request:\n got %X\nwant %X", got, negReq)
	}
	rh, err := UnmarshalHeader(negResp)
	if err != nil {
		t.Fatal(err)
	}
	nr, err := UnmarshalNegotiateResponse(negResp[HeaderSize:])
	if err != nil {
		t.Fatal(err)
	}
	if rh.Command != CmdNegotiate || nr.Dialect != Dialect311 || len(nr.Contexts) != 2 || nr.MaxReadSize != 0x800000 {
		t.Fatalf("NEGOTIATE response: header %+v, body %+v", rh, nr)
	}
	if cs, err := nr.Contexts[1].Ciphers(); err != nil || len(cs) != 1 || cs[0] != CipherAES128GCM {
		t.Fatalf("negotiated ciphers %v, %v", cs, err)
	}
	if !spnegoOffersNTLM(nr.SecurityBuffer) {
		t.Fatal("the server's NegTokenInit2 does not list NTLMSSP")
	}

	// The pre-auth integrity hash after each message.
	hash := make([]byte, 64)
	for i, step := range []struct {
		msg  []byte
		want string
	}{
		{negReq, "DD94EFC5321BB618A2E208BA8920D2F422992526947A409B5037DE1E0FE8C7362B8C47122594CDE0CE26AA9DFC8BCDBDE0621957672623351A7540F1E54A0426"},
		{negResp, "324BFA92A4F3A190E466EBEA08D9C110DC88BFED758D9846ECC6F541CC1D02AE3C94A79F36011E997E13F841B91B50957AD07B19C8E2539C0B23FDAE09D2C513"},
		{ssReq1, "AC0B0F2B9986257700365E416D142A6EDC96DF03594A19E52A15F6BD0D041CD5D432F8ED42C55E33197A50C9EC00F1462B50C592211B1471A04B56088FDFD5F9"},
		{ssResp1, "2729E3440DFDDD839E37193F6E8F20C20CEFB3469E453A70CD980EEC06B88357" + "40A73760085633364C8989895ECE81BF102DEEB14D4B7D48AFA76901A7A38387"},
		{ssReq2, "0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB7928622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01"},
	} {
		s := sha512.New()
		s.Write(hash)
		s.Write(step.msg)
		hash = s.Sum(nil)
		eqHex(t, "pre-auth hash after message "+string(rune('1'+i)), hash, step.want)
	}

	// The NTLM messages inside SPNEGO.
	ntlmNeg := ssReq1[bytes.Index(ssReq1, ntlmSignature):]
	ss1, err := UnmarshalSessionSetupResponse(ssResp1[HeaderSize:])
	if err != nil {
		t.Fatal(err)
	}
	tok1, err := parseSPNEGOResp(ss1.SecurityBuffer)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ParseNTLMChallenge(tok1.ResponseToken)
	if err != nil {
		t.Fatal(err)
	}
	eqHex(t, "server challenge", ch.ServerChallenge[:], "0D1D8BA31179D008")
	if ch.TargetName != "SUT311" || ch.Flags != 0xE28A8215 {
		t.Fatalf("challenge target %q flags %#x", ch.TargetName, ch.Flags)
	}
	tok2, err := parseSPNEGOResp(ssReq2[HeaderSize+24:])
	if err != nil {
		t.Fatal(err)
	}
	auth := tok2.ResponseToken

	// NTLMv2 keys ([MS-NLMP] 3.3.2) for administrator / SUT311 / Password01!.
	respKey := ntowfv2("administrator", "Password01!", "SUT311")
	eqHex(t, "NTOWFv2", respKey, "AEE3959B44A815F1EB28C9511B4F533B")
	ntResp := auth[le.Uint32(auth[24:]):][:le.Uint16(auth[20:])]
	proof := hmacMD5(respKey, ch.ServerChallenge[:], ntResp[16:])
	eqHex(t, "NTProofStr", proof, "63078EB639FE03E20A231C3AE3BF2308")
	base := hmacMD5(respKey, proof)
	eqHex(t, "KeyExchangeKey", base, "B4CF22566926B1C069ACD80E4D73C814")
	encKey := auth[le.Uint32(auth[56:]):][:le.Uint16(auth[52:])]
	eqHex(t, "EncryptedRandomSessionKey", encKey, "3B9BDFF38F5EE8F9663F11A0F4C03A78")
	sessionKey := rc4Once(base, encKey)
	eqHex(t, "ExportedSessionKey", sessionKey, "270E1BA896585EEB7AF3472D3B4C75A7")
	eqHex(t, "MIC", ntlmMIC(sessionKey, ntlmNeg, tok1.ResponseToken, auth), "ECAC77A5F385A8BF9C38C706EEEDDCD3")
	eqHex(t, "the MIC field", auth[72:88], "ECAC77A5F385A8BF9C38C706EEEDDCD3")
	eqHex(t, "mechListMIC", ntlmMechListMIC(sessionKey, le.Uint32(auth[60:]), spnegoMechTypes()), "0100000063775A9A5FD97F0600000000")
	eqHex(t, "the mechListMIC sent", tok2.MechListMIC, "0100000063775A9A5FD97F0600000000")

	// SMB 3.1.1 keys and the final response's signature.
	keys := deriveKeys(Dialect311, CipherAES128GCM, sessionKey, hash)
	eqHex(t, "SigningKey", keys.signing, "73FE7A9A77BEF0BDE49C650D8CCB5F76")
	eqHex(t, "EncryptionKey (client to server)", keys.encryption, "629BCBC54422A0F572B97F45989B6073")
	eqHex(t, "DecryptionKey (server to client)", keys.decryption, "E2AF0DCEFAC68DA71A0DFBD0D1350D74")
	if err := verify(Dialect311, keys.signing, ssResp2); err != nil {
		t.Fatalf("final SESSION_SETUP response: %v", err)
	}
	ssResp2[70] ^= 1
	if err := verify(Dialect311, keys.signing, ssResp2); err == nil {
		t.Fatal("a tampered response verified")
	}
}

// The SMB 3.0 key derivation example of the same blog post (master
// session): SessionKey to SigningKey, EncryptionKey and DecryptionKey (the
// client's: it encrypts with EncryptionKey).
func TestSMB30KeysMicrosoftBlog(t *testing.T) {
	keys := deriveKeys(Dialect300, CipherAES128CCM, unhex(t, "7CD451825D0450D235424E44BA6E78CC"), nil)
	eqHex(t, "SigningKey", keys.signing, "0B7E9C5CAC36C0F6EA9AB275298CEDCE")
	eqHex(t, "EncryptionKey", keys.encryption, "FAD27796665B313EBB578F388632B4F7")
	eqHex(t, "DecryptionKey", keys.decryption, "B0F0427F7CEB416D1D9DCC0CD4F99447")
	eqHex(t, "ApplicationKey", kdf(unhex(t, "7CD451825D0450D235424E44BA6E78CC"), []byte("SMB2APP\x00"), []byte("SmbRpc\x00")), "BB23A4575AA26C721AF525AF15A87B4F")
}

// Microsoft Open Specifications blog posts "Encryption in SMB 3.0: A
// protocol perspective" (AES-128-CCM) and "SMB 3.1.1 Encryption in Windows
// 10" (AES-128-GCM): a WRITE request encrypted by the client and a WRITE
// response decrypted by it.
func TestEncryptionMicrosoftBlog(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		dialect               Dialect
		cipher                Cipher
		sessionKey, preauth   string
		encKey, decKey        string
		sessionID             uint64
		nonce                 string
		plain, sealed         []string
		respSealed, respPlain []string
	}{
		{
			name: "3.0 AES-128-CCM", dialect: Dialect300, cipher: CipherAES128CCM,
			sessionKey: "B4546771B515F766A86735532DD6C4F0",
			encKey:     "261B72350558F2E9DCF613070383EDBF", decKey: "8FE2B57EC34D2DB5B1A9727F526BBDB5",
			sessionID: 0x8E40014000011, nonce: "66E69A111892584FB5ED524A744DA3EE",
			plain: []string{"FE534D4240000100000000000900400008000000000000000400000000000000",
				"FFFE0000010000001100001400E4080000000000000000000000000000000000",
				"3100700017000000000000000000000015010000390000020100000039020000",
				"00000000000000007000000000000000536D623320656E6372797074696F6E20",
				"74657374696E67"},
			sealed: []string{"FD534D4281A286535415445DAE393921E44FA42E66E69A111892584FB5ED524A",
				"744DA3EE87000000000001001100001400E4080025C8FEE16605A437832D1CD5",
				"2DA9F4645333482A175FE5384563F45FCDAFAEF38BC62BA4D5C62897996625A4",
				"4C29BE5658DE2E6117585779E7B59FFD971278D08580D7FA899E410E910EABF5",
				"AA1DB43050B33B49182637759AC15D84BFCDF5B6B238993C0F4CF4D6012023F6",
				"C627297075D84B7803912D0A9639634453595EF3E33FFE4E7AC2AB"},
			respSealed: []string{"FD534D42A6015530A18F6D9AFFE22AFAE8E66484860000000000000011000014",
				"00E4080050000000000001001100001400E40800DBF46435C5F14169293CE079",
				"E344479BF670227E49873F458672C3098DAC467DD5809F369D67409166515787",
				"1483E01F7BECD02064EAC3E235F913668BBC2F097980D4B378F1993EFF6E60D1",
				"77309E5B"},
			respPlain: []string{"FE534D4240000100000000000900210009000000000000000400000000000000",
				"FFFE0000010000001100001400E4080000000000000000000000000000000000",
				"11000000170000000000000000000000"},
		},
		{
			name: "3.1.1 AES-128-GCM", dialect: Dialect311, cipher: CipherAES128GCM,
			sessionKey: "419FDDF34C1E001909D362AE7FB6AF79",
			preauth: "B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9EDDDBA7DB256BA2EA30E9" +
				"77F11F9B113247578E0E915C6D2A513B8F2FCA5707DC8770",
			encKey: "A2F5E80E5D59103034F32E52F698E5EC", decKey: "748C50868C90F302962A5C35F5F9A8BF",
			sessionID: 0x100000000025, nonce: "C7D6822D269CAF48904C664C00000000",
			plain: []string{"FE534D4240000100000000000900010008000000000000000500000000000000FFFE000001000000",
				"25000000001000000000000000000000000000000000000031007000170000000000000000000000",
				"0600000004000000010000000400000000000000000000007000000000000000536D623320656E63",
				"72797074696F6E2074657374696E67"},
			sealed: []string{"FD534D42BD73D97D2BC9001BCAFAC0FDFF5FEEBCC7D6822D269CAF48904C664C0000000087000000",
				"0000010025000000001000006ECDD2A7AFC7B47763057A041B8FD4DAFFE990B70C9E09D36C084E02",
				"D14EF247F8BDE38ACF6256F8B1D3B56F77FBDEB312FEA5E92CBCC1ED8FB2EBBFAA75E49A4A394BB4",
				"4576545567C24D4C014D47C9FBDFDAFD2C4F9B72F8D256452620A299F48E29E53D6B61D1C13A19E9",
				"1AF013F00D17E3ABC2FC3D36C8C1B6B93973253852DBD442E46EE8"},
			respSealed: []string{"FD534D42ACBE1CB7ED343ADF1725EF144D90D4B0E06831DD2E8EB7B4000000000000000050000000",
				"00000100250000000010000026BBBF949983A6C1C796559D0F2C510CB651D1F7B6AC8DED32A2A0B8",
				"F2D793A815C6F6B848D69767A215841A42D400AE6DDB5F0B44173A014973321FDD7950DA6179159B",
				"82E03C9E18A050FF0EA1C967"},
			respPlain: []string{"FE534D4240000100000000000900010001000000000000000500000000000000FFFE000001000000",
				"25000000001000000000000000000000000000000000000011000000170000000000000000000000"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := deriveKeys(tc.dialect, tc.cipher, unhex(t, tc.sessionKey), unhex(t, tc.preauth))
			eqHex(t, "encryption key", keys.encryption, tc.encKey)
			eqHex(t, "decryption key", keys.decryption, tc.decKey)
			enc, err := aead(tc.cipher, keys.encryption)
			if err != nil {
				t.Fatal(err)
			}
			var nonce [16]byte
			copy(nonce[:], unhex(t, tc.nonce))
			plain := unhex(t, tc.plain...)
			// The plaintext is the WRITE request this client builds.
			h, err := UnmarshalHeader(plain)
			if err != nil {
				t.Fatal(err)
			}
			eqHex(t, "WRITE header", h.Append(nil), hex.EncodeToString(plain[:HeaderSize]))
			eqHex(t, "sealed WRITE", encrypt(enc, tc.sessionID, nonce, plain), tc.sealed...)
			dec, err := aead(tc.cipher, keys.decryption)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decrypt(dec, unhex(t, tc.respSealed...))
			if err != nil {
				t.Fatal(err)
			}
			eqHex(t, "opened WRITE response", got, tc.respPlain...)
			wr, err := UnmarshalWriteResponse(got[HeaderSize:])
			if err != nil || wr.Count != 23 {
				t.Fatalf("WRITE response %+v, %v; want 23 bytes written", wr, err)
			}
			bad := unhex(t, tc.respSealed...)
			bad[len(bad)-1] ^= 0x80
			if _, err := decrypt(dec, bad); err == nil {
				t.Fatal("a tampered message decrypted")
			}
		})
	}
}
