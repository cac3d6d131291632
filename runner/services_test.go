package runner

// Every service stormcheck runs registers its workload kinds.
import _ "github.com/stormcheck/stormcheck/runner/services"
