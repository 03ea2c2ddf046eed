// Package server creates pools and starts, kills and restarts plush-server
// on them, for tests that talk to it as a Redis client would.
package server

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// CreatePool makes an empty pool with the CLI (`plush create --small`, and
// `--range` for a range-partitioned one): small, so that creating and
// recovering it is quick.
func CreatePool(cli, path string, rangePool bool) error {
	args := []string{"create", "--small", path}
	if rangePool {
		args = append(args, "--range")
	}
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", cli, strings.Join(args, " "), err, out)
	}
	return nil
}

// Options say how to start plush-server.
type Options struct {
	Binary     string
	Pool       string
	Port       int  // 0: any free port
	Create     bool // a new pool with the server's defaults (--create)
	SyncWrites bool
}

// Process is a running plush-server.
type Process struct {
	cmd  *exec.Cmd
	Port int

	mu     sync.Mutex
	stderr strings.Builder
	exited chan struct{}
}

// The line plush-server writes to standard error once it listens
// (tools/server/main.cc).
var servingLine = regexp.MustCompile(`^plush-server: serving .* on 127\.0\.0\.1:(\d+) `)

// Start runs plush-server on opts.Pool and returns once it serves. The
// server is killed if this process dies, so that no test leaves one behind.
func Start(opts Options) (*Process, error) {
	args := []string{"--pool", opts.Pool, "--port", strconv.Itoa(opts.Port), "--threads", "2"}
	if opts.Create {
		args = append(args, "--create")
	}
	if opts.SyncWrites {
		args = append(args, "--sync-writes")
	}
	p := &Process{cmd: exec.Command(opts.Binary, args...), exited: make(chan struct{})}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pipe, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	ports := make(chan int, 1)
	go p.readStderr(pipe, ports)
	select {
	case p.Port = <-ports:
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("plush-server %s exited before serving: %s", strings.Join(args, " "), p.Stderr())
	case <-time.After(10 * time.Second):
		_ = p.Kill() // whether or not it exited first, its stderr says why
		return nil, fmt.Errorf("plush-server %s did not serve within 10 s: %s", strings.Join(args, " "), p.Stderr())
	}
}

// StartRetrying starts the server as Start does, trying again for a few
// seconds if it fails, as it may while the port it is given is still held
// by the server just killed.
func StartRetrying(opts Options) (*Process, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, err := Start(opts)
		if err == nil || time.Now().After(deadline) {
			return p, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readStderr keeps what the server writes, reports its port once it
// serves, and closes exited when it exits.
func (p *Process) readStderr(pipe io.Reader, ports chan<- int) {
	scanner := bufio.NewScanner(pipe)
	for scanner.Scan() {
		line := scanner.Text()
		p.mu.Lock()
		p.stderr.WriteString(line + "\n")
		p.mu.Unlock()
		if m := servingLine.FindStringSubmatch(line); m != nil {
			port, _ := strconv.Atoi(m[1])
			ports <- port
		}
	}
	p.cmd.Wait()
	close(p.exited)
}

// Stderr is what the server has written to standard error so far.
func (p *Process) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Kill ends the server with SIGKILL (kill -9) and returns once it is gone;
// it fails if the server had exited before, on its own.
func (p *Process) Kill() error {
	select {
	case <-p.exited:
		return fmt.Errorf("plush-server had exited on its own (%v): %s", p.cmd.ProcessState, p.Stderr())
	default:
	}
	p.cmd.Process.Kill()
	<-p.exited
	return nil
}

// Stop asks the server to close its pool (SIGTERM) and fails unless it
// exits cleanly.
func (p *Process) Stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.Kill()
		return fmt.Errorf("plush-server did not stop within 10 s of SIGTERM: %s", p.Stderr())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("plush-server exited %d after SIGTERM: %s", code, p.Stderr())
	}
	return nil
}
