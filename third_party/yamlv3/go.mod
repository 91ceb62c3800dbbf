module gopkg.in/yaml.v3

go 1.22

require go.yaml.in/yaml/v3 v3.0.5
