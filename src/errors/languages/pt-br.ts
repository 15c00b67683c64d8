/**
 * Brazilian Portuguese (`pt-BR`): every code's texts and the words around them, written for Brazilian readers
 * (docs/languages.md). Codes, numbers, header names and product names stay as they are. Pure.
 */
import type { CatalogCode, CodeText, Translation, Words } from "./words";

const sec = (n: number): string => `${n} ${n === 1 ? "segundo" : "segundos"}`;

/** The opening of every retryable guidance: wait, then what the operator should look at if it persists. */
const waitThen = (wait: number, operator: string): string =>
  `**Aguarde e tente de novo.** Espere pelo menos ${sec(wait)}. Se o erro continuar, ${operator}`;

const BLOCKED =
  "**Não tente de novo.** Este bloqueio é intencional. Entre em contato com o proprietário do site se achar que é um engano.";
const UNPUBLISHED = "O significado exato deste código não foi divulgado.";
const IP_BANNED: CodeText = {
  title: "Acesso negado: seu endereço IP foi bloqueado",
  detail: "O proprietário do site bloqueou seu endereço IP.",
  whatYouShouldDo: BLOCKED,
};
const CLIENT_TLS: CodeText = {
  title: "Erro de TLS do cliente",
  detail: `A conexão TLS do seu cliente não atende aos requisitos do site. ${UNPUBLISHED}`,
  whatYouShouldDo:
    "**Não tente de novo do mesmo jeito.** Use um cliente TLS atualizado (versão, conjuntos de cifras e certificado).",
};
const ZONE_CONFIG: CodeText = {
  title: "Erro de configuração da zona",
  detail: `A configuração do site na rede edge impede o atendimento desta solicitação. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Não tente de novo.** O operador do site precisa revisar a configuração da zona.",
};
const WORKER_FAILED: CodeText = {
  title: "Erro do Worker",
  detail: `Um script do site falhou. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Não tente de novo.** O operador do site precisa verificar os logs do script.",
};
const REQUEST_BLOCKED: CodeText = {
  title: "Acesso negado",
  detail: `O proprietário do site bloqueou esta solicitação. ${UNPUBLISHED}`,
  whatYouShouldDo: BLOCKED,
};
const SNIPPET_FAILED: CodeText = {
  title: "Erro de snippet",
  detail: `Um snippet configurado pelo site falhou. ${UNPUBLISHED}`,
  whatYouShouldDo: "**Não tente de novo.** O operador do site precisa verificar os snippets da zona.",
};
const FIX_REWRITE = "**Não tente de novo.** O operador do site precisa corrigir a regra de reescrita.";
const FIX_TRANSFORM = "**Não tente de novo.** O operador do site precisa corrigir a regra de transformação.";
const LEGAL = "**Não tente de novo.** A restrição é legal e não será suspensa com novas tentativas.";

const CODES: Readonly<Record<CatalogCode, CodeText>> = {
  500: {
    title: "Erro interno do servidor",
    detail:
      "A rede edge encontrou um erro interno ao processar esta solicitação. O servidor de origem não está necessariamente envolvido.",
    whatYouShouldDo: (w) =>
      `**Aguarde e tente de novo.** Espere pelo menos ${sec(w)}. Se o erro continuar, informe o Ray ID ao operador do site.`,
  },
  502: {
    title: "Gateway inválido",
    detail:
      "O servidor de origem do site devolveu à rede edge uma resposta inválida ou incompleta. Normalmente isso indica que a origem está sobrecarregada ou mal configurada.",
    whatYouShouldDo: (w) =>
      waitThen(w, "o operador do site deve verificar a saúde e a configuração do servidor de origem."),
  },
  504: {
    title: "Tempo limite do gateway esgotado",
    detail:
      "O servidor de origem do site não respondeu à rede edge dentro do tempo permitido. Normalmente isso significa que a origem está sobrecarregada ou que um processo do back-end está demorando demais.",
    whatYouShouldDo: (w) =>
      waitThen(w, "o operador do site deve investigar processos demorados no servidor de origem."),
  },
  520: {
    title: "O servidor web está retornando um erro desconhecido",
    detail:
      "O servidor de origem do site enviou uma resposta que a rede edge não conseguiu interpretar, ou fechou a conexão antes de concluir a resposta.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "o operador do site deve procurar nos logs da origem por falhas, respostas vazias ou cabeçalhos malformados.",
      ),
  },
  521: {
    title: "O servidor web está fora do ar",
    detail:
      "O servidor de origem do site recusou a conexão da rede edge. A origem está off-line ou bloqueando a rede edge.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "o operador do site deve garantir que o servidor de origem esteja no ar e aceite conexões da rede edge.",
      ),
  },
  522: {
    title: "Tempo limite de conexão esgotado",
    detail:
      "A rede edge não conseguiu estabelecer uma conexão TCP com o servidor de origem. O handshake TCP expirou, o que pode indicar que a origem está sobrecarregada, bloqueando a rede edge no firewall ou inacessível na rede.",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "o operador do site deve revisar as regras de firewall e garantir que a origem aceite conexões dos intervalos de IP da rede edge.",
      ),
  },
  523: {
    title: "A origem está inacessível",
    detail: "A rede edge não tem rota de rede até o endereço do servidor de origem.",
    whatYouShouldDo: (w) =>
      waitThen(w, "o operador do site deve verificar o endereço da origem e o roteamento de rede dele."),
  },
  524: {
    title: "Tempo limite esgotado",
    detail: (timeout) =>
      `O servidor de origem do site não devolveu uma resposta completa dentro do Proxy Read Timeout de ${sec(timeout)}. A conexão foi estabelecida, mas a origem demorou demais para responder.`,
    whatYouShouldDo: (w) =>
      waitThen(w, "o operador do site deve procurar processos demorados ou sobrecarga na origem."),
  },
  525: {
    title: "Falha no handshake SSL",
    detail: "O handshake TLS entre a rede edge e o servidor de origem falhou.",
    whatYouShouldDo:
      "**Não tente de novo.** A configuração TLS da origem está com problema; tentar de novo não vai adiantar até que o operador do site a corrija.",
  },
  526: {
    title: "Certificado SSL inválido",
    detail:
      "O servidor de origem apresentou um certificado que a rede edge não conseguiu validar (expirado, autoassinado ou emitido para outro nome).",
    whatYouShouldDo:
      "**Não tente de novo.** Não vai adiantar até que o operador do site instale um certificado válido na origem.",
  },

  1000: {
    title: "O DNS aponta para um IP proibido",
    detail:
      "O DNS ou a origem do site aponta de volta para a própria rede edge, então a solicitação entraria em loop. A rede edge a interrompeu.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa apontar a origem da zona para um servidor que não seja a própria rede edge.",
  },
  1001: {
    title: "Erro de resolução de DNS",
    detail:
      "O nome de host solicitado não está configurado na rede edge, que por isso não sabe para onde enviar a solicitação.",
    whatYouShouldDo:
      "**Não tente de novo.** Confira o nome de host. Se estiver correto, o operador do site precisa configurar a zona na rede edge.",
  },
  1002: {
    title: "O DNS aponta para um IP proibido",
    detail: "O registro DNS do site aponta para um endereço que a rede edge não aceita como origem.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa alterar o registro DNS para o endereço real do servidor de origem.",
  },
  1003: {
    title: "Acesso negado: acesso direto por IP não permitido",
    detail: "A solicitação acessou a rede edge pelo endereço IP, e não pelo nome de host de um site.",
    whatYouShouldDo:
      "**Não tente de novo do mesmo jeito.** Acesse o site pelo nome de host, não pelo endereço IP da rede edge.",
  },
  1004: {
    title: "Host não configurado para servir tráfego web",
    detail:
      "A rede edge conhece o nome de host, mas ele ainda não está configurado para servir tráfego web, por exemplo porque o DNS ainda está se propagando.",
    whatYouShouldDo: (w) =>
      waitThen(w, "o operador do site deve verificar se o nome de host passa pelo proxy e se o DNS já se propagou."),
  },
  1005: {
    title: "Acesso negado: sistema autônomo (ASN) bloqueado",
    detail: "O proprietário do site bloqueou a rede (ASN) à qual seu endereço IP pertence.",
    whatYouShouldDo: BLOCKED,
  },
  1006: {
    title: "Acesso negado: seu endereço IP foi bloqueado",
    detail: "O proprietário do site bloqueou seu endereço IP (ou um intervalo que o contém).",
    whatYouShouldDo: BLOCKED,
  },
  1007: IP_BANNED,
  1008: IP_BANNED,
  1009: {
    title: "Acesso negado",
    detail: "O proprietário do site bloqueou o país ou a região associados ao seu endereço IP.",
    whatYouShouldDo: BLOCKED,
  },
  1010: {
    title: "Acesso negado",
    detail: "O proprietário do site bloqueou o acesso com base na assinatura do seu navegador.",
    whatYouShouldDo: "**Não tente de novo.** O proprietário do site bloqueou seu user-agent.",
  },
  1011: {
    title: "Acesso negado (hotlinking não permitido)",
    detail: "O proprietário do site não permite que este recurso seja incorporado em outros sites.",
    whatYouShouldDo: "**Não tente de novo.** Abra o recurso no próprio site, não a partir de outro site.",
  },
  1012: {
    title: "Acesso negado",
    detail:
      "O proprietário do site bloqueou esta solicitação, por exemplo por causa de atividade suspeita vinda do seu endereço.",
    whatYouShouldDo: BLOCKED,
  },
  1013: {
    title: "O nome de host HTTP e o do TLS SNI não coincidem",
    detail: "O nome de host da solicitação HTTP é diferente do enviado no handshake TLS (SNI).",
    whatYouShouldDo:
      "**Não tente de novo do mesmo jeito.** Envie o mesmo nome de host no handshake TLS e na solicitação; verifique qualquer proxy no caminho.",
  },
  1014: {
    title: "CNAME entre contas não permitido",
    detail: "O nome de host é um CNAME para uma zona de outra conta, o que a rede edge não permite.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa apontar o nome de host para uma zona da própria conta.",
  },
  1015: {
    title: "Suas solicitações estão sendo limitadas",
    detail: "A configuração do proprietário do site está limitando a taxa das suas solicitações.",
    whatYouShouldDo: (w) =>
      `**Aguarde e tente de novo.** Este bloqueio é temporário. Espere pelo menos ${sec(w)} e tente de novo.\n\nComo proceder:\n1. Espere ${sec(w)} antes da próxima solicitação\n2. Se for limitado de novo, espere o tempo indicado pelo Retry-After dessa resposta: é o tempo que falta para o bloqueio terminar\n3. Se a limitação continuar depois de 5 tentativas, pare e repense seu padrão de solicitações`,
  },
  1016: {
    title: "Erro de DNS da origem",
    detail: "A rede edge não conseguiu resolver o nome de host do servidor de origem do site.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa corrigir o registro DNS da origem (ou o endereço da origem na configuração da zona).",
  },
  1017: CLIENT_TLS,
  1018: {
    title: "Host não encontrado",
    detail:
      "A rede edge não encontrou o host solicitado, por exemplo porque a zona foi adicionada há pouquíssimo tempo.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa verificar a configuração do nome de host na rede edge; uma zona recém-adicionada pode levar alguns minutos para se propagar.",
  },
  1019: {
    title: "Erro do servidor de computação",
    detail: "Um script do site chamou a si mesmo de forma recursiva e a rede edge interrompeu o loop.",
    whatYouShouldDo: "**Não tente de novo.** O operador do site precisa corrigir a recursão do script.",
  },
  1020: {
    title: "Acesso negado",
    detail: "A solicitação foi bloqueada por uma regra de firewall configurada pelo proprietário do site.",
    whatYouShouldDo: BLOCKED,
  },
  1023: {
    title: "Host não encontrado",
    detail: "A rede edge não encontrou o host solicitado na configuração de DNS do parceiro.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa verificar a configuração de DNS do nome de host.",
  },
  1025: {
    title: "Volte mais tarde",
    detail: "O site atingiu um limite de solicitações do plano dele.",
    whatYouShouldDo:
      "**Não tente de novo.** O site esgotou um limite de solicitações do plano; só o operador do site pode aumentá-lo.",
  },
  1026: {
    title: "Indisponível por motivos legais",
    detail: "O acesso a este conteúdo está restrito por motivos legais.",
    whatYouShouldDo: LEGAL,
  },
  1027: {
    title: "Este site foi limitado temporariamente",
    detail:
      "O proprietário do site ultrapassou o limite diário de solicitações do plano gratuito do Workers. O limite é zerado à meia-noite UTC.",
    whatYouShouldDo:
      "**Não tente de novo.** O limite diário de solicitações do site é zerado à meia-noite UTC; até lá, toda solicitação recebe este erro.",
  },
  1028: CLIENT_TLS,
  1029: CLIENT_TLS,
  1033: {
    title: "Erro de túnel",
    detail: "O host está configurado como túnel, mas a rede edge não consegue alcançá-lo no momento.",
    whatYouShouldDo: (w) => waitThen(w, "o operador do site deve verificar se o conector do túnel está em execução."),
  },
  1034: {
    title: "IP de edge restrito",
    detail: "O DNS do site aponta para um endereço que a rede edge não aceita como origem.",
    whatYouShouldDo: "**Não tente de novo.** O operador do site precisa corrigir o registro DNS do nome de host.",
  },
  1035: {
    title: "Reescrita de solicitação inválida (caminho de URI inválido)",
    detail: "Uma regra de reescrita de URL do site produziu um caminho de URI inválido.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1036: {
    title: "Reescrita de solicitação inválida (tamanho máximo excedido)",
    detail: "Uma regra de reescrita de URL do site produziu um valor mais longo do que o permitido.",
    whatYouShouldDo: FIX_REWRITE,
  },
  1037: {
    title: "Regra de reescrita inválida (falha ao avaliar a expressão)",
    detail: "Uma regra de reescrita do site não conseguiu avaliar a expressão para esta solicitação.",
    whatYouShouldDo: "**Não tente de novo.** O operador do site precisa corrigir a expressão da regra de reescrita.",
  },
  1038: {
    title: "Limite de cabeçalhos HTTP excedido",
    detail: "Os cabeçalhos da solicitação são maiores do que o site permite.",
    whatYouShouldDo: (w) =>
      `**Aguarde e tente de novo com cabeçalhos menores.** Espere pelo menos ${sec(w)} e envie menos cabeçalhos, ou cabeçalhos menores (principalmente cookies).`,
  },
  1039: {
    title: "Restrição legal",
    detail: `O acesso a partir da sua localização está restrito por motivos legais. ${UNPUBLISHED}`,
    whatYouShouldDo: LEGAL,
  },
  1040: {
    title: "Reescrita de solicitação inválida (alteração de cabeçalho não permitida)",
    detail: "Uma regra de transformação do site tentou alterar um cabeçalho que não pode ser alterado.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1041: {
    title: "Reescrita de solicitação inválida (valor de cabeçalho inválido)",
    detail: "Uma regra de transformação do site produziu um valor de cabeçalho inválido.",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1042: {
    title: "Script não encontrado",
    detail: "Um script do site chamou outro script da mesma conta que não pode ser acessado dessa forma.",
    whatYouShouldDo:
      "**Não tente de novo.** O operador do site precisa chamar o outro script por um binding ou uma rota.",
  },
  1043: ZONE_CONFIG,
  1044: {
    title: "Cifra TLS fora da conformidade FIPS",
    detail: "Seu cliente negociou um conjunto de cifras TLS que a política FIPS do site não permite.",
    whatYouShouldDo:
      "**Não tente de novo do mesmo jeito.** Use um cliente TLS que ofereça conjuntos de cifras aprovados pelo FIPS.",
  },
  1045: {
    title: "Recurso ou protocolo não suportado",
    detail: `A solicitação usa um recurso ou protocolo que a rede edge não suporta. ${UNPUBLISHED}`,
    whatYouShouldDo:
      "**Não tente de novo do mesmo jeito.** Envie a solicitação com um protocolo e recursos suportados.",
  },
  1047: ZONE_CONFIG,
  1049: ZONE_CONFIG,
  1100: WORKER_FAILED,
  1101: {
    title: "O Worker lançou uma exceção",
    detail: "O script que atende este site lançou uma exceção ao processar a solicitação.",
    whatYouShouldDo: "**Não tente de novo.** A falha está no script do site; informe o Ray ID ao operador do site.",
  },
  1102: {
    title: "O Worker excedeu os limites de recursos",
    detail: "Um script de Worker configurado pelo proprietário do site excedeu os limites de recursos.",
    whatYouShouldDo: "**Não tente de novo.** O operador do site precisa reduzir o uso de CPU ou de memória do script.",
  },
  1103: WORKER_FAILED,
  1104: WORKER_FAILED,
  1105: {
    title: "Worker temporariamente indisponível",
    detail: `Não foi possível executar um script do site. ${UNPUBLISHED}`,
    whatYouShouldDo: "**Não tente de novo.** O operador do site precisa verificar a implantação do script.",
  },
  1106: IP_BANNED,
  1107: REQUEST_BLOCKED,
  1108: REQUEST_BLOCKED,
  1109: REQUEST_BLOCKED,
  1200: {
    title: "Limite de conexões do cache",
    detail: "Há solicitações demais na rede edge aguardando o servidor de origem, por isso esta foi recusada.",
    whatYouShouldDo: (w) => waitThen(w, "o operador do site deve verificar por que a origem está respondendo devagar."),
  },
  1201: SNIPPET_FAILED,
  1202: SNIPPET_FAILED,
  1203: SNIPPET_FAILED,
  1204: SNIPPET_FAILED,
  1205: {
    title: "Redirecionamentos demais",
    detail: "Um snippet do site redirecionou ou buscou o recurso de novo vezes demais ao processar esta solicitação.",
    whatYouShouldDo: (w) =>
      waitThen(w, "o operador do site deve verificar se o snippet tem loops de redirecionamento."),
  },
  1206: SNIPPET_FAILED,
};

const WORDS: Words = {
  language: "pt-BR",
  errorTitle: (code, title) => `Erro ${code}: ${title}`,
  footer: (operator) => `Este erro foi gerado por ${operator} em nome do proprietário do site.`,
  seconds: sec,

  ownerBlock: "Só o proprietário do site pode remover este bloqueio.",
  ownerFix: "O proprietário do site precisa corrigir isso.",
  ownerNone: "O proprietário do site não precisa fazer nada.",
  notRetryableLead: "Tentar de novo não vai adiantar",
  notRetryableBlock: " enquanto o bloqueio estiver ativo.",
  notRetryableFix: " até que a causa seja corrigida.",
  notRetryableSame: ": a mesma solicitação recebe a mesma resposta.",
  retryHelpsLead: "Vale a pena tentar de novo:",
  retryHelpsWait: (wait) => ` tente novamente daqui a ${wait}.`,

  eyebrow: (code, status) => `Erro ${code} · HTTP ${status}`,
  whatHappened: "O que aconteceu",
  whatYouCanDo: "O que você pode fazer",
  details: "Detalhes",
  rayId: "Ray ID",
  copy: "Copiar",
  copied: "Copiado",
  selectAndCopy: "Selecionar e copiar",
  timeUtc: "Horário (UTC)",
  website: "Site",
  httpStatus: "Status HTTP",
  errorName: "Nome do erro",
  category: "Categoria",
  moreHelp: "Mais ajuda",
  aboutError: (code) => `Sobre o erro ${code}`,

  whereItBroke: "Onde está a falha",
  hopYou: "Você",
  hopEdge: "Rede edge",
  hopWebsite: "Site",
  subYou: "Navegador ou app",
  subEdge: "Rede",
  originServer: "Servidor de origem",
  stateWorking: "Funcionando",
  stateError: "Erro",
  stateBlocked: "Bloqueado",
  stateNotReached: "Não alcançado",

  mdWhatHappened: "O que aconteceu",
  mdWhatYouShouldDo: "O que você deve fazer",
  mdMoreHelp: "Mais ajuda",

  ref: {
    errorCodes: "Códigos de erro",
    eyebrow: "Referência",
    lead: "Todos os erros que a rede edge pode gerar, agrupados por classe e categoria. Cada código leva à sua página: status, comportamento de nova tentativa, o que aconteceu e o que fazer.",
    filter: "Filtrar",
    filterPlaceholder: "Código, título, nome ou categoria",
    filterCount: "{n} de {total} códigos",
    class5xx: "Erros 5xx",
    class5xxAbout: "Erros de servidor que a rede edge gera quando não consegue uma resposta do site.",
    class1xxx: "Erros 1xxx",
    class1xxxAbout: "Erros da rede edge: a solicitação foi recusada ou não pôde ser processada pela rede edge.",
    categories: {
      origin: "Origem: o servidor do site",
      edge: "Edge: a própria rede edge",
      ssl: "SSL: o certificado do site",
      access_denied: "Acesso negado",
      rate_limit: "Limitação de taxa",
      dns: "DNS",
      config: "Configuração do site",
      tls: "TLS: a conexão do cliente",
      legal: "Jurídico",
      worker: "Workers: o código do site",
      rewrite: "Regras de reescrita",
      snippet: "Snippets",
      unsupported: "Não suportado",
    },
    noRetry: "sem nova tentativa",
    retryAfterChip: (s) => `tentar após ${s} s`,
    ownerAction: "ação do proprietário",
    ownerActionLabel: "Ação do proprietário",
    yes: "sim",
    no: "não",
    allCodes: "Todos os códigos de erro",
    atAGlance: "Resumo",
    retry: "Nova tentativa",
    notRetryable: (lead, reason) => `Sem nova tentativa. ${lead}${reason} Sem cabeçalho Retry-After.`,
    retryable: (wait, s) =>
      `Pode tentar de novo: espere ${wait} (Retry-After: ${s}; uma regra de limitação de taxa pode definir o próprio valor).`,
    required: "Necessária.",
    notRequired: "Não necessária.",
    whatToDo: "O que fazer",
    formats: "Formatos",
    formatsLead: ["O erro é entregue no formato que o cabeçalho ", " do cliente prefere:"],
    formatHtml: "navegadores e clientes sem preferência.",
    formatJson: ["ou", "os mesmos 17 campos."],
    formatMarkdown: "front matter YAML e, em seguida, o que aconteceu e o que fazer.",
  },
};

export const PT_BR: Translation = { words: WORDS, codes: CODES };
