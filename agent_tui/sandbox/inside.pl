# The sandbox's network bridge, in Perl with built-ins only (no `use`: it starts in a few ms).
# Same job as inside.py, which runs where there is no perl: open the HTTP proxy port on the
# sandbox's own loopback, start the command with HTTP_PROXY / HTTPS_PROXY / ALL_PROXY pointing
# at it, carry each connection to the app's proxy through the Unix socket bound in, and exit with
# the command's status (which ends every process left in the sandbox's pid namespace).
# Usage: perl inside.pl SOCKET [--seccomp PRCTL:HEX] -- COMMAND...
# With --seccomp the command (not this bridge) starts under that filter (seccomp.py: no Unix
# sockets; none when HEX is empty), and the bridge makes itself undumpable (PR_SET_DUMPABLE 0:
# the command can't ptrace it, read its /proc/1/fd or take its sockets with pidfd_getfd).
my $path = shift @ARGV;
my $seccomp = '';
while (@ARGV && $ARGV[0] ne '--') {
    my $flag = shift @ARGV;
    $seccomp = shift @ARGV if $flag eq '--seccomp';
}
shift @ARGV;
my @cmd = @ARGV;
my ($prctl, $filter) = split /:/, $seccomp, 2;
if ($seccomp ne '' && syscall($prctl + 0, 4, 0, 0, 0, 0) != 0) {    # PR_SET_DUMPABLE, 0
    die "agent-tui sandbox: the bridge could not make itself undumpable: $!\n";
}
socket(my $listener, 2, 1, 0) or die "agent-tui sandbox: socket: $!\n";    # AF_INET, STREAM
bind($listener, pack("S n C4 x8", 2, 0, 127, 0, 0, 1)) or die "agent-tui sandbox: bind: $!\n";
listen($listener, 128) or die "agent-tui sandbox: listen: $!\n";
my (undef, $port) = unpack("S n", getsockname($listener));
$ENV{$_} = "http://127.0.0.1:$port"
  for qw(HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy);
pipe(my $wake_r, my $wake_w) or die "agent-tui sandbox: pipe: $!\n";
my $pid = fork();
die "agent-tui sandbox: fork: $!\n" unless defined $pid;
if ($pid == 0) {
    close $listener; close $wake_r; close $wake_w;
    $SIG{TERM} = 'DEFAULT';    # bwrap and we were started with it ignored; the command isn't
    if ($seccomp ne '' && $filter ne '') {
        my $code = pack("H*", $filter);
        my $prog = pack("S x6", length($code) / 8) . pack("p", $code);
        if (syscall($prctl + 0, 38, 1, 0, 0, 0) != 0          # PR_SET_NO_NEW_PRIVS
            || syscall($prctl + 0, 22, 2, $prog, 0, 0) != 0)  # PR_SET_SECCOMP, FILTER
        {
            print STDERR "agent-tui sandbox: the socket filter could not be installed: $!\n";
            exit 126;
        }
    }
    exec { $cmd[0] } @cmd;
    print STDERR "agent-tui sandbox: cannot run $cmd[0]: $!\n";
    exit 127;
}
# A timeout's SIGTERM reaches the whole group: stay until the command has ended, so it gets its
# grace period (our exit ends the pid namespace).
$SIG{TERM} = 'IGNORE';
$SIG{CHLD} = sub { syswrite($wake_w, "x") };

sub pump {
    my ($a, $b) = @_;
    my %peer = (fileno($a) => [$a, $b], fileno($b) => [$b, $a]);
    my %open = (fileno($a) => 1, fileno($b) => 1);
    while (%open) {
        my $rin = '';
        vec($rin, $_, 1) = 1 for keys %open;
        my $n = select(my $rout = $rin, undef, undef, undef);
        next if $n < 0;
        for my $fd (keys %open) {
            next unless vec($rout, $fd, 1);
            my ($from, $to) = @{$peer{$fd}};
            my $got = sysread($from, my $buf, 65536);
            if (!$got) { delete $open{$fd}; shutdown($to, 1); next }
            my $off = 0;
            while ($off < $got) {
                my $w = syswrite($to, $buf, $got - $off, $off);
                if (!defined $w) { %open = (); last }
                $off += $w;
            }
        }
    }
}

sub serve {
    my ($client) = @_;
    socket(my $up, 1, 1, 0) or exit 1;    # AF_UNIX, STREAM
    if (!connect($up, pack("S a*", 1, $path . "\0"))) {
        my $why = "$!";
        syswrite($client, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
          . "Connection: close\r\n\r\nagent-tui sandbox: the app's proxy is not reachable ($why)\n");
        exit 0;
    }
    pump($client, $up);
    exit 0;
}

my $status;
LOOP: while (1) {
    while ((my $done = waitpid(-1, 1)) > 0) {    # WNOHANG
        if ($done == $pid) { $status = $?; last LOOP }
    }
    my $rin = '';
    vec($rin, fileno($listener), 1) = 1;
    vec($rin, fileno($wake_r), 1) = 1;
    my $n = select(my $rout = $rin, undef, undef, undef);
    next if $n <= 0;
    sysread($wake_r, my $drop, 512) if vec($rout, fileno($wake_r), 1);
    if (vec($rout, fileno($listener), 1) && accept(my $client, $listener)) {
        my $kid = fork();
        if (defined $kid && $kid == 0) {
            close $listener; close $wake_r; close $wake_w;
            $SIG{CHLD} = 'DEFAULT';
            serve($client);
        }
        close $client;
    }
}
exit(($status & 127) ? 128 + ($status & 127) : $status >> 8);
