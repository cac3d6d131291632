// Package azurite installs, starts and stops a private Azurite (the Azure
// Storage emulator) for stormcheck runs.
//
// Typical use:
//
//	inst, err := azurite.Start(ctx, azurite.Options{Progress: os.Stderr})
//	if err != nil { ... }
//	defer inst.Stop()
//	// inst.BlobURL, inst.QueueURL, inst.TableURL, inst.Account, inst.Key
//
// Each Instance listens on 127.0.0.1 only, on ports chosen by the kernel
// (Azurite is started with port 0 and the real ports are read from its
// output), keeps its data in a private temporary directory on disk, and runs
// in its own process group so that an interactive Ctrl-C reaches stormcheck
// but not Azurite; Stop then shuts the whole group down. On Linux the child
// also gets SIGTERM if stormcheck dies abruptly.
//
// Secrets: Instance.Key and Instance.ConnectionString hold the (public,
// documented) Azurite development key. Nothing in this package prints them;
// callers must not print them either. Instance implements fmt.Stringer and
// fmt.GoStringer without the key, so %v and %#v are safe.
//
// Environment variables:
//
//	STORMCHECK_AZURITE  path to an azurite binary to use instead of installing one
//	STORMCHECK_CACHE    root of the install cache (default os.UserCacheDir()/stormcheck)
//
// The package targets Unix-like systems (process groups, flock) and is
// tested on Linux; Pdeathsig is Linux-only. Elsewhere it compiles, but
// cannot install Azurite and stops it by killing the process only.
package azurite
