package viewer_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/trajectory"
	"github.com/gorigid/gorigid/viewer"
)

// Run a scene into a trajectory file, then serve the viewer of it. A
// program would listen on a loopback address and call viewer.Serve:
//
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	...
//	err = viewer.Serve(ctx, ln, viewer.LoopbackOnly(v))
//
// and open http://127.0.0.1:8080/ in a browser; here httptest serves it.
func Example() {
	sc, err := scenes.Lookup("pendulum")
	if err != nil {
		log.Fatal(err)
	}
	w, err := sc.Build(nil)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "viewer")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "pendulum.csv")
	if _, err := trajectory.RunFiles(context.Background(), w, trajectory.Files{Trajectory: path}, trajectory.Options{Steps: 10}); err != nil {
		log.Fatal(err)
	}

	tr, err := viewer.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	// The scene as built, not as stepped: the viewer draws its geometry.
	w, _ = sc.Build(nil)
	v, err := viewer.New(w, tr, nil, viewer.Options{Scene: "pendulum", Trajectory: "pendulum.csv"})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(viewer.LoopbackOnly(v))
	defer srv.Close()

	fmt.Println(tr.Frames(), "frames of", tr.Bodies, "body")
	resp, err := srv.Client().Get(srv.URL + "/api/frames?from=0&to=1")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(b[:60]))
	// Output:
	// 11 frames of 1 body
	// 200 OK {"from":0,"to":1,"stride":1,"bodies":1,"count":1,"next":null
}
